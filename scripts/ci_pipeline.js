// Helpers of scripts/test-ci-local.sh, run with the js-yaml that
// gitlab-ci-local installs (NODE_PATH points at its node_modules).
//
//   node ci_pipeline.js check-spec FILE...   check each component's spec:inputs header
//   node ci_pipeline.js shell-jobs IN OUT     drop `image:` from an expanded pipeline
//
// check-spec: GitLab validates a component's header only when a pipeline
// includes it, and gitlab-ci-local's bundled schema has no rules for it, so
// we check what GitLab documents: the keys an input may have, the input
// types, that a default fits its type and options, and that every
// $[[ inputs.x ]] in the body names a declared input.
//
// shell-jobs: no container runtime runs here, so the component's jobs run
// under gitlab-ci-local's shell executor with our binaries on PATH; that
// needs jobs without an image. The expansion keeps its include: list, which
// would add the jobs again, images and all; it goes too. Nothing else changes.
"use strict";
const fs = require("fs");
const yaml = require("js-yaml");

const INPUT_KEYS = new Set(["default", "description", "options", "regex", "type"]);
const TYPES = new Set(["string", "number", "boolean", "array"]);

function checkSpec(file) {
  const errors = [];
  const text = fs.readFileSync(file, "utf8");
  const docs = yaml.loadAll(text);
  if (docs.length !== 2 || !docs[0] || !docs[0].spec) {
    return [`${file}: want a spec: header document, ---, then the jobs`];
  }
  const header = docs[0];
  for (const k of Object.keys(header)) if (k !== "spec") errors.push(`${file}: header key ${k} (only spec)`);
  for (const k of Object.keys(header.spec)) if (k !== "inputs") errors.push(`${file}: spec key ${k} (only inputs)`);
  const inputs = header.spec.inputs || {};
  for (const [name, def] of Object.entries(inputs)) {
    const d = def || {};
    for (const k of Object.keys(d)) if (!INPUT_KEYS.has(k)) errors.push(`${file}: input ${name}: unknown key ${k}`);
    const type = d.type || "string";
    if (!TYPES.has(type)) errors.push(`${file}: input ${name}: type ${type}`);
    if (!d.description) errors.push(`${file}: input ${name}: no description (the CI/CD Catalog shows it)`);
    if ("default" in d) {
      const v = d.default;
      const ok = { string: typeof v === "string", number: typeof v === "number", boolean: typeof v === "boolean", array: Array.isArray(v) }[type];
      if (!ok) errors.push(`${file}: input ${name}: default ${JSON.stringify(v)} is not a ${type}`);
      if (d.options && !d.options.includes(v)) errors.push(`${file}: input ${name}: default ${v} not in options`);
    }
  }
  const body = text.slice(text.indexOf("\n---\n"));
  for (const m of body.matchAll(/\$\[\[\s*inputs\.([\w-]+)/g)) {
    if (!(m[1] in inputs)) errors.push(`${file}: $[[ inputs.${m[1]} ]] is not declared`);
  }
  return errors;
}

const [cmd, ...args] = process.argv.slice(2);
if (cmd === "check-spec") {
  const errors = args.flatMap(checkSpec);
  for (const e of errors) console.error(e);
  process.exit(errors.length ? 1 : 0);
} else if (cmd === "shell-jobs") {
  const pipeline = yaml.load(fs.readFileSync(args[0], "utf8"));
  delete pipeline.include; // already expanded into the jobs
  for (const job of Object.values(pipeline)) {
    if (job && typeof job === "object" && !Array.isArray(job)) delete job.image;
  }
  fs.writeFileSync(args[1], yaml.dump(pipeline));
} else {
  console.error("usage: ci_pipeline.js check-spec FILE... | shell-jobs IN OUT");
  process.exit(2);
}
