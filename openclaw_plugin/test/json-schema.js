// A small JSON Schema checker for the keywords the plugin's configSchema uses, so the node
// tests can ask "would OpenClaw accept this config?" without installing a validator. It
// refuses a schema keyword it does not know rather than ignore it, so the manifest cannot
// start relying on one this checker would silently skip. `make e2e` feeds the same seed
// config to the real gateway, whose validator is the authority.

const ANNOTATIONS = new Set(["description", "default", "title"]);
const KEYWORDS = new Set(["type", "properties", "additionalProperties", "required", "items", "minimum", "maximum", "enum", "minLength", "maxLength"]);

function typeOf(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function typeMatches(expected, actual) {
  return expected === actual || (expected === "number" && actual === "integer");
}

/**
 * Every way `value` breaks `schema`, as "path: message" strings (empty when it is valid).
 * @param {Record<string, any>} schema
 * @param {unknown} value
 * @param {string} [path]
 * @returns {string[]}
 */
export function schemaErrors(schema, value, path = "<root>") {
  for (const key of Object.keys(schema)) {
    if (!KEYWORDS.has(key) && !ANNOTATIONS.has(key)) throw new Error(`${path}: schema keyword ${key} is not supported by test/json-schema.js`);
  }
  const errors = [];
  const actual = typeOf(value);
  if (schema.type && !typeMatches(schema.type, actual)) return [`${path}: must be ${schema.type}, got ${actual}`];
  if (schema.enum && !schema.enum.some((option) => JSON.stringify(option) === JSON.stringify(value))) errors.push(`${path}: must be one of ${JSON.stringify(schema.enum)}`);
  if (typeof value === "number") {
    if (schema.minimum !== undefined && value < schema.minimum) errors.push(`${path}: must be >= ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum) errors.push(`${path}: must be <= ${schema.maximum}`);
  }
  if (typeof value === "string") {
    if (schema.minLength !== undefined && value.length < schema.minLength) errors.push(`${path}: shorter than ${schema.minLength}`);
    if (schema.maxLength !== undefined && value.length > schema.maxLength) errors.push(`${path}: longer than ${schema.maxLength}`);
  }
  if (actual === "object") {
    const record = /** @type {Record<string, unknown>} */ (value);
    const properties = schema.properties || {};
    for (const name of schema.required || []) {
      if (!Object.hasOwn(record, name)) errors.push(`${path}: must have required property '${name}'`);
    }
    const extra = Object.keys(record).filter((name) => !Object.hasOwn(properties, name));
    if (schema.additionalProperties === false && extra.length) {
      errors.push(`${path}: must not have additional properties: ${extra.map((name) => `"${name}"`).join(", ")}`);
    }
    for (const [name, sub] of Object.entries(properties)) {
      if (Object.hasOwn(record, name)) errors.push(...schemaErrors(sub, record[name], path === "<root>" ? name : `${path}.${name}`));
    }
  }
  if (actual === "array" && schema.items) {
    /** @type {unknown[]} */ (value).forEach((item, i) => errors.push(...schemaErrors(schema.items, item, `${path}.${i}`)));
  }
  return errors;
}
