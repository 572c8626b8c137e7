#!/usr/bin/env node
// `npx cumulo-agent` in the repository: the TypeScript sources through tsx when it is installed (a checkout), else
// the single-file build (`npm run build:agent` → apps/agent/dist/cumulo-agent.mjs).
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const source = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const bundle = fileURLToPath(new URL('../dist/cumulo-agent.mjs', import.meta.url));

let tsx = null;
if (existsSync(source)) {
  try {
    tsx = await import('tsx/esm/api');
  } catch {
    tsx = null;
  }
}
if (tsx) {
  tsx.register();
  await import(pathToFileURL(source).href);
} else if (existsSync(bundle)) {
  await import(pathToFileURL(bundle).href);
} else {
  process.stderr.write(
    'cumulo-agent: neither tsx nor the built agent was found. Run `npm run build:agent`.\n',
  );
  process.exit(1);
}
