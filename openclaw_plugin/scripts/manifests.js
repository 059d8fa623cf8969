// Writes openclaw.plugin.json, slot/openclaw.plugin.json and slot/package.json from
// lib/manifest.js and package.json. `--check` writes nothing and exits 1 when a file
// differs from what would be written (test/manifests.test.js runs the same comparison).
//
//   node scripts/manifests.js           # regenerate after editing lib/manifest.js
//   node scripts/manifests.js --check

import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { generatedFiles } from "../lib/manifest.js";

const ROOT = new URL("../", import.meta.url);

export function staleFiles(root = ROOT) {
  const pkg = JSON.parse(readFileSync(new URL("package.json", root), "utf8"));
  return generatedFiles(pkg).filter(({ path, text }) => {
    try {
      return readFileSync(new URL(path, root), "utf8") !== text;
    } catch {
      return true;
    }
  });
}

function main(argv) {
  const check = argv.includes("--check");
  const stale = staleFiles();
  if (check) {
    if (stale.length) {
      console.error(`out of date (run \`node scripts/manifests.js\` in openclaw_plugin/): ${stale.map((f) => f.path).join(", ")}`);
      return 1;
    }
    console.log("manifests match lib/manifest.js");
    return 0;
  }
  for (const { path, text } of stale) {
    writeFileSync(new URL(path, ROOT), text);
    console.log(`wrote ${path}`);
  }
  if (!stale.length) console.log("manifests already match lib/manifest.js");
  return 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = main(process.argv.slice(2));
