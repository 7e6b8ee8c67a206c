// pg_admin.mjs — the witness of the PostgreSQL tests: SQL run as the cluster's admin through psql
// (never through sluice), to set the scene and to check what the server holds afterwards.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";

// Runs sql as the admin (SLUICE_PG_ADMIN); its unaligned output, trimmed.
export function admin(sql) {
  const r = spawnSync("psql", ["-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", process.env.SLUICE_PG_ADMIN, "-c", sql],
                      { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim();
}
