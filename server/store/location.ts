/** Whether a store location is a PostgreSQL URL (else it is a SQLite file, or `:memory:`). */
export const isPostgresUrl = (value: string) => /^postgres(ql)?:\/\//i.test(value);

/** A database URL as it may be printed: its password, if any, replaced by ***. */
export const withoutPassword = (url: string) => url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*:)[^@]*@/i, '$1***@');
