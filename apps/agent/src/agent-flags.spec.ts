import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { agentNodeFlags } from '../../../scripts/build-agent.mjs';

// The downloads start the agent through these launchers; bench/agent measures it with agentNodeFlags. A flag added
// to one and not the other would measure a program no user runs.
describe('the packaging launchers', () => {
  for (const launcher of ['linux/cumulo-agent', 'macos/cumulo-agent', 'windows/cumulo-agent.cmd']) {
    it(`${launcher} starts node with exactly agentNodeFlags`, () => {
      const text = readFileSync(new URL(`../packaging/${launcher}`, import.meta.url), 'utf8');
      const line = text.split(/\r?\n/).find((candidate) => /^(exec )?node /.test(candidate));
      expect(line).toBeDefined();
      const flags = (line ?? '')
        .replace(/^(exec )?node /, '')
        .split(' ')
        .filter((word) => word.startsWith('--'));
      expect(flags).toEqual(agentNodeFlags);
    });
  }
});
