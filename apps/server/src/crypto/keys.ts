import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Loads the master key from MASTER_KEY, or from DATA_DIR/master.key, creating that file (mode 0600) on first run.
 * Every other key is derived from it with HKDF, so one secret protects JWTs and sealed secrets alike.
 */
export function loadMasterKey(masterKeyBase64: string | undefined, dataDir: string): Buffer {
  if (masterKeyBase64) return Buffer.from(masterKeyBase64, 'base64');
  const file = path.join(dataDir, 'master.key');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(dataDir, { recursive: true });
    try {
      fs.writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
    } catch (error) {
      // Another process created it first: use theirs.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  const key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte base64 key`);
  return key;
}

/** A purpose-bound 32-byte key derived from the master key. */
export function deriveKey(master: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), `cumulo:${purpose}`, 32));
}

/** AES-256-GCM sealing of small secrets (TOTP secrets, cloud credentials) for storage at rest. */
export class SecretBox {
  readonly #key: Buffer;

  constructor(master: Buffer) {
    this.#key = deriveKey(master, 'secret-box');
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `v1.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  open(sealed: string): string {
    if (!sealed.startsWith('v1.')) throw new Error('unknown sealed-secret format');
    const raw = Buffer.from(sealed.slice(3), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}
