// The two manifests (openclaw.plugin.json, slot/openclaw.plugin.json) and slot/package.json
// are written from lib/manifest.js by scripts/manifests.js. These checks fail when a file
// was edited by hand or lib/manifest.js changed without regenerating, and when the id
// drifts between the manifests, package.json and the runtime entries.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";

import supplementPlugin from "../index.js";
import { buildManifest, generatedFiles, MODES, PLUGIN_ID, SLOT_TOOL_NAMES, TOOL_NAMES } from "../lib/manifest.js";
import { staleFiles } from "../scripts/manifests.js";
import slotPlugin from "../slot/index.js";

const readJson = (rel) => JSON.parse(readFileSync(new URL(rel, import.meta.url), "utf8"));
const pkg = readJson("../package.json");
const root = readJson("../openclaw.plugin.json");
const slot = readJson("../slot/openclaw.plugin.json");
const slotPkg = readJson("../slot/package.json");

describe("manifests are generated from lib/manifest.js", () => {
  test("every generated file matches what scripts/manifests.js would write", () => {
    assert.deepEqual(generatedFiles(pkg).map((f) => f.path), ["openclaw.plugin.json", "slot/openclaw.plugin.json", "slot/package.json"]);
    assert.deepEqual(
      staleFiles().map((f) => f.path),
      [],
      "out of date: run `node scripts/manifests.js` in openclaw_plugin/ (and edit lib/manifest.js, not the JSON)",
    );
  });

  test("the two manifests differ only in name, kind, description and the slot's two tools", () => {
    const shared = ({ name, kind, description, contracts, ...rest }) => rest;
    assert.deepEqual(shared(slot), shared(root));
    assert.deepEqual(slot.configSchema, root.configSchema);
    assert.equal(root.kind, undefined);
    assert.equal(slot.kind, "memory");
    assert.deepEqual(root.contracts.tools, [...TOOL_NAMES]);
    assert.deepEqual(slot.contracts.tools, [...TOOL_NAMES, ...SLOT_TOOL_NAMES]);
    assert.deepEqual(buildManifest(MODES.SLOT, pkg), slot);
  });

  test("one id everywhere: manifests, package.json files and both runtime entries", () => {
    assert.equal(PLUGIN_ID, "lingix-agent-memory");
    for (const id of [root.id, slot.id, pkg.openclaw.plugin.id, slotPkg.openclaw.plugin.id, supplementPlugin.id, slotPlugin.id]) assert.equal(id, PLUGIN_ID);
    assert.equal(pkg.name, PLUGIN_ID, "the package name matches the id, so `plugins install` needs no renaming note");
    assert.equal(root.version, pkg.version);
    assert.equal(slot.version, pkg.version);
    assert.equal(slotPlugin.kind, slot.kind);
    assert.equal(supplementPlugin.kind, root.kind);
    assert.deepEqual(slotPkg.peerDependencies, pkg.peerDependencies);
    assert.deepEqual(slotPkg.engines, pkg.engines);
    assert.deepEqual(slotPkg.openclaw.extensions, ["./index.js"]);
  });
});
