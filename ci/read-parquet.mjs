// Reads a vaultgraph Parquet table with two independent readers, hyparquet
// (pure JavaScript) and DuckDB, and prints what each saw as JSON, so the Go
// tests can check that the tables are plain Parquet any reader opens.
//
// usage: node read-parquet.mjs FILE.parquet KEYCOLUMN
import { readFileSync } from 'node:fs';
import { parquetReadObjects, parquetMetadata } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { DuckDBInstance } from '@duckdb/node-api';

const [file, key] = process.argv.slice(2);
const buf = readFileSync(file);
const arrayBuffer = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);

const meta = parquetMetadata(arrayBuffer);
const rows = await parquetReadObjects({ file: arrayBuffer, compressors });
const hyparquet = {
  rows: Number(meta.num_rows),
  columns: meta.schema.slice(1).filter((s) => s.num_children === undefined).length,
  keys: rows.map((r) => r[key]),
};

const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();
const res = await conn.runAndReadAll(`SELECT "${key}" AS k FROM read_parquet('${file.replaceAll("'", "''")}')`);
const duckdb = { rows: res.getRowObjects().length, keys: res.getRowObjects().map((r) => r.k) };

process.stdout.write(JSON.stringify({ hyparquet, duckdb, sample: rows[0] ?? null }, (_, v) => (typeof v === 'bigint' ? Number(v) : v)));
