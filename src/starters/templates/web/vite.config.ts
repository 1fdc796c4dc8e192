import react from '@vitejs/plugin-react';
import { defineConfig, loadEnv } from 'vite';
import { sandboxSignIn } from './dev/sandbox-sign-in.ts';

export default defineConfig(({ mode }) => {
  // The '' prefix loads every variable of .env, not only VITE_ ones: the test key is read here,
  // on the dev server, and never bundled for the browser.
  const env = loadEnv(mode, process.cwd(), '');
  return {
    plugins: [
      react(),
      sandboxSignIn({ apiUrl: env.VITE_SVC_API_URL || '__SVC_API_URL__', testKey: env.SVC_TEST_KEY }),
    ],
  };
});
