// speedscope-check.mjs: checks a speedscope.json against speedscope's own
// schema (node_modules/speedscope/dist/release/file-format-schema.json)
// with ajv, then prints what the shell tests compare:
//   node speedscope-check.mjs FILE            "valid" or the schema errors (exit 1)
//   node speedscope-check.mjs FILE folded     the stacks as folded lines,
//        `comm;root;...;leaf weight` (comm from the profile name, spaces as _)
//   node speedscope-check.mjs FILE threads    per profile `NAME TAB samples TAB
//        weights TAB 1 if endValue - startValue = the weights TAB unit`, then
//        `active TAB activeProfileIndex`
//   node speedscope-check.mjs FILE sequence   per sample, in file order,
//        `NAME TAB frame;frame;... TAB weight`
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv from 'ajv';

const here = dirname(fileURLToPath(import.meta.url));
const schemaPath = join(here, 'node_modules/speedscope/dist/release/file-format-schema.json');
const [file, what = 'valid'] = process.argv.slice(2);
const schema = JSON.parse(readFileSync(schemaPath, 'utf8'));
const doc = JSON.parse(readFileSync(file, 'utf8'));
const ajv = new Ajv({ allErrors: true, strict: false });
const validate = ajv.compile(schema);
if (!validate(doc)) {
  console.error(JSON.stringify(validate.errors.slice(0, 10), null, 1));
  process.exit(1);
}
const frames = doc.shared.frames;
if (what === 'valid') {
  console.log('valid');
} else if (what === 'folded') {
  const sums = new Map();
  for (const p of doc.profiles) {
    const comm = p.name.replace(/ -?\d+\/-?\d+$/, '').replace(/ /g, '_');
    p.samples.forEach((st, i) => {
      const key = [comm, ...st.map((f) => frames[f].name)].join(';');
      sums.set(key, (sums.get(key) || 0) + p.weights[i]);
    });
  }
  const lines = [...sums].map(([k, v]) => `${k} ${v}`);
  lines.sort((a, b) => (Buffer.compare(Buffer.from(a), Buffer.from(b))));
  process.stdout.write(lines.map((l) => l + '\n').join(''));
} else if (what === 'threads') {
  for (const p of doc.profiles) {
    const total = p.weights.reduce((a, b) => a + b, 0);
    console.log(`${p.name}\t${p.samples.length}\t${total}\t${total === p.endValue - p.startValue ? 1 : 0}\t${p.unit}`);
  }
  console.log(`active\t${doc.activeProfileIndex}`);
} else if (what === 'sequence') {
  for (const p of doc.profiles)
    p.samples.forEach((st, i) => console.log(`${p.name}\t${st.map((f) => frames[f].name).join(';')}\t${p.weights[i]}`));
} else {
  console.error(`usage: speedscope-check.mjs FILE [valid|folded|threads|sequence]`);
  process.exit(100);
}
