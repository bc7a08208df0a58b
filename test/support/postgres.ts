/**
 * The PostgreSQL the suite also runs on: TEST_DATABASE_URL, or the machine's server at
 * 127.0.0.1:5432 (user postgres, database test). Where none answers, the PostgreSQL half of the
 * suite is skipped, loudly.
 */
import pg from "pg";

/** The admin connection URL of the test server. */
export const POSTGRES_ADMIN_URL =
  process.env["TEST_DATABASE_URL"] ?? "postgresql://postgres@127.0.0.1:5432/test";

/** The URL of another database on the same server. */
export function databaseUrl(name: string): string {
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs SQL on the admin database. */
export async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Whether the test PostgreSQL answers. */
export async function postgresAnswers(): Promise<boolean> {
  try {
    await adminQuery("SELECT 1");
    return true;
  } catch {
    return false;
  }
}
