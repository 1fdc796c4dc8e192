/** Whether a store location is a PostgreSQL URL (else it is a SQLite file, or `:memory:`). */
export const isPostgresUrl = (value: string) => /^postgres(ql)?:\/\//i.test(value);
