// Runs SQL statements in DuckDB for tools/rowcount/engine.py.
// stdin: {"database": PATH or ":memory:", "threads": N, "read_only": BOOL, "timeout_s": S,
//         "statements": [{"id": ID, "sql": SQL}, ...]}
// A statement still running after timeout_s seconds is interrupted (its result is an error).
// stdout: one JSON line per statement, in order: {"id", "rows": [[...], ...], "seconds"} or {"id", "error"}.
// A statement that fails does not stop the others. BIGINT and DECIMAL values come back as strings.
import { DuckDBInstance } from '@duckdb/node-api';

const chunks = [];
for await (const c of process.stdin) chunks.push(c);
const job = JSON.parse(Buffer.concat(chunks).toString('utf8'));
const options = job.threads ? { threads: String(job.threads) } : {};
if (job.read_only) options.access_mode = 'READ_ONLY';
const instance = await DuckDBInstance.create(job.database || ':memory:', options);
const conn = await instance.connect();
for (const st of job.statements) {
  const t0 = process.hrtime.bigint();
  let out;
  const timer = job.timeout_s ? setTimeout(() => conn.interrupt(), job.timeout_s * 1000) : null;
  try {
    const reader = await conn.runAndReadAll(st.sql);
    const rows = reader.getRows().map((r) => r.map((v) => (v === null ? null : typeof v === 'number' ? v : String(v))));
    out = { id: st.id, rows, seconds: Number(process.hrtime.bigint() - t0) / 1e9 };
  } catch (e) {
    out = { id: st.id, error: String(e && e.message ? e.message : e) };
  }
  if (timer) clearTimeout(timer);
  process.stdout.write(JSON.stringify(out) + '\n');
}
