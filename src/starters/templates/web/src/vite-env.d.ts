/// <reference types="vite/client" />

/** The variables of .env this app reads (Vite hands the browser only the VITE_ ones). */
interface ImportMetaEnv {
  readonly VITE_SVC_API_URL?: string;
  readonly VITE_IDP_APP_ID?: string;
  readonly VITE_SVC_MODEL?: string;
}
