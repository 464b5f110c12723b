// node_host.mjs: the tracestore DuckDB extension in Node's DuckDB
// (@duckdb/node-api), the host issue 29 names beside the C one.
//
// usage: node node_host.mjs EXTENSION SQL...
//   NODE_PATH names the node_modules holding @duckdb/node-api.  Loads the
//   extension (unsigned extensions allowed), runs each SQL statement and
//   prints each result row as a JSON array of strings (NULL as null).
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(path.join(process.env.NODE_PATH || '.', 'x.js'));
const { DuckDBInstance } = require('@duckdb/node-api');
const [ext, ...statements] = process.argv.slice(2);
const instance = await DuckDBInstance.create(':memory:',
    { allow_unsigned_extensions: 'true' });
const con = await instance.connect();
await con.run(`LOAD '${ext}'`);
for (const sql of statements) {
  const reader = await con.runAndReadAll(sql);
  for (const row of reader.getRows()) {
    console.log(JSON.stringify(row.map((v) => v === null ? null : String(v))));
  }
}
