// `node --check` over every JavaScript file of the plugin (node_modules excluded): a syntax
// error anywhere, including a file no test imports, fails here before OpenClaw loads it.
// Then the manifests are compared with lib/manifest.js (scripts/manifests.js --check).
// Needs only Node (20 or later); `make lint-node` runs it before tsc.

import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const SKIP = new Set(["node_modules", ".git"]);

/** @param {string} dir @returns {string[]} */
function jsFiles(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => !SKIP.has(entry.name))
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return jsFiles(path);
      return /\.(?:js|mjs)$/.test(entry.name) ? [path] : [];
    })
    .sort();
}

const files = jsFiles(ROOT);
let failed = 0;
for (const file of files) {
  const done = spawnSync(process.execPath, ["--check", file], { encoding: "utf8" });
  if (done.status !== 0) {
    failed += 1;
    process.stderr.write(`${relative(ROOT, file)}:\n${done.stderr}\n`);
  }
}
const manifests = spawnSync(process.execPath, [join(ROOT, "scripts", "manifests.js"), "--check"], { encoding: "utf8" });
if (manifests.status !== 0) process.stderr.write(manifests.stderr);
console.log(`node --check: ${files.length - failed}/${files.length} files parse${manifests.status === 0 ? "; manifests match lib/manifest.js" : ""}`);
process.exitCode = failed || manifests.status !== 0 ? 1 : 0;
