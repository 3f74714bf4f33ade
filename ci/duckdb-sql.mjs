// Runs SQL with DuckDB in the current directory, as the duckdb shell would
// run it there, and prints the rows of each statement as JSON (DuckDB's own
// JSON rendering: dates and timestamps as text, big integers as strings).
// The Go tests use it to check that the README's queries run as written and
// that the tables' columns read as typed values.
//
// usage: node duckdb-sql.mjs < statements.json   (a JSON array of SQL strings)
import { readFileSync } from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';

const statements = JSON.parse(readFileSync(0, 'utf8'));
const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();
const out = [];
for (const sql of statements) {
  try {
    const res = await conn.runAndReadAll(sql);
    out.push({ columns: res.columnNames(), types: res.columnTypes().map((t) => t.toString()), rows: res.getRowObjectsJson() });
  } catch (err) {
    out.push({ error: String(err.message ?? err) });
  }
}
process.stdout.write(JSON.stringify(out));
