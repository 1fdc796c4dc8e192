import type { Sql } from './database.js';
import type { Store } from '../types.js';

export function createDevelopersRepository(sql: Sql): Store['developers'] {
  return {
    async create(developer) {
      await sql`INSERT INTO developers (id, name, created_at) VALUES (${developer.id}, ${developer.name}, ${developer.createdAt})`;
      return developer;
    },
    async count() {
      const [row] = await sql<{ n: number }[]>`SELECT COUNT(*) AS n FROM developers`;
      return row?.n ?? 0;
    },
    async list() {
      // Byte order, as SQLite sorts, whatever the database's collation.
      const rows = await sql<{ id: string; name: string; created_at: string; apps: number }[]>`
        SELECT d.id, d.name, d.created_at,
          (SELECT COUNT(*) FROM apps a WHERE a.developer_id = d.id AND a.deleted_at IS NULL) AS apps
        FROM developers d ORDER BY d.created_at COLLATE "C", d.id COLLATE "C"`;
      return rows.map((row) => ({ id: row.id, name: row.name, createdAt: row.created_at, apps: row.apps }));
    },
  };
}
