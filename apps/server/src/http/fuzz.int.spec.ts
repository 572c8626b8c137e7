import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  PROVIDER_NAMES,
  messages,
  saveReplicationBody,
  saveSyncBody,
  transferMessages,
} from '@cumulo/contract';
import { S3RVER_KEY, startAzurite, startS3rver, type TestStoreServer } from '@cumulo/storage/testing';
import {
  callApi,
  s3rverStore,
  signedInMember,
  startTestServer,
  type TestServer,
} from '../../test/harness.ts';

/**
 * Issue 20, finding 4: odd text or numbers must never answer 500. Every route of the OpenAPI document the app
 * serves gets, one field at a time, the values a hostile or careless client sends; the rest of the request is a
 * plausible valid one (pointing at a real s3rver account and bucket) so the odd value travels as deep as it can.
 */

interface JsonSchema {
  type?: string | string[];
  required?: string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
  maxLength?: number;
  minItems?: number;
  default?: unknown;
  $ref?: string;
}
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  schema?: JsonSchema;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}
interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
type Path = Array<string | number>;

/** A request the fuzz sends: what was changed is in `label`. */
interface FuzzCase {
  method: Method;
  url: string;
  body?: string | Buffer;
  authenticated: boolean;
  label: string;
}

const LONE_HIGH = '\ud800';
const ODD_STRINGS: Array<[string, string]> = [
  ['NUL', 'a\u0000b'],
  ['lone high surrogate', LONE_HIGH],
  ['lone low surrogate', '\udfff'],
  ['100 000 characters', 'x'.repeat(100_000)],
  ['dot-dot path', '../../etc/passwd'],
  ['percent-encoded NUL', '%00'],
  ['emoji and accents', 'Zoë 😀🚀 ünïcødé'],
  ['empty', ''],
];
const INSIDE_VALID: Array<[string, string]> = [
  ['NUL', '\u0000'],
  ['lone surrogate', LONE_HIGH],
];
const ODD_NUMBERS: Array<[string, unknown]> = [
  ['1e308', 1e308],
  ['-1e308', -1e308],
  ['2**64', 2 ** 64],
  ['MAX_SAFE_INTEGER', Number.MAX_SAFE_INTEGER],
  ['-MAX_SAFE_INTEGER', -Number.MAX_SAFE_INTEGER],
  ['a fraction', 1.5],
  ['"NaN"', 'NaN'],
  ['"Infinity"', 'Infinity'],
];
/** Query strings and path segments carry text only: the same values as they travel in a URL. */
const ODD_URL_VALUES: Array<[string, string]> = [
  ['NUL', '%00'],
  ['lone surrogate (CESU bytes)', '%ED%A0%80'],
  ['bad escape', '%E0%A4%A'],
  ['100 000 characters', 'x'.repeat(100_000)],
  ['dot-dot path', '..%2F..%2Fetc'],
  ['emoji', encodeURIComponent('😀')],
  ['1e308', '1e308'],
  ['NaN', 'NaN'],
  ['2**64', '18446744073709551616'],
  ['-0', '-0'],
  ['empty', ''],
];
const WRONG_BODIES: Array<[string, string | Buffer]> = [
  ['array body', '[]'],
  ['null body', 'null'],
  ['string body', '"text"'],
  ['number body', '1e308'],
  ['nested lone surrogate key', '{"\\ud800":"\\udfff"}'],
  ['invalid escape', '{"a":"\\x"}'],
  ['cut escape', '{"a":"\\u00"}'],
  ['cut document', '{"a":'],
  // A surrogate encoded straight into UTF-8 bytes (CESU-8): not UTF-8 at all.
  [
    'raw surrogate bytes',
    Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]),
  ],
];
/** The validation library's own texts (zod 4's English locale), which no answer may carry. */
const ZOD_TEXT =
  /Invalid input|Invalid option|Too (small|big):|Unrecognized keys?:|Invalid (UUID|email|URL|string|ISO|element|key)|expected (string|number|int|boolean|array|object), received/;
/** Cases per route at most, so a route with many fields does not dominate the run. */
const CASES_PER_ROUTE = 160;
const CONCURRENCY = 6;
/** Routes the fuzz must not call: logout ends the very session the fuzz uses, and takes no input to fuzz. */
const SKIPPED = new Set(['POST /api/authentication/logout']);
/**
 * Routes whose documented body is free-form because the route tells the shapes apart itself (sync insert takes
 * saveSync or saveSyncWasabi): their real shapes come from the contract.
 */
/** The calls only a transfer agent makes: fuzzed with a paired device's token, so odd values reach the service. */
const DEVICE_ONLY = /^\/api\/agent\/(me|tickets\/redeem|downloads|history)(\?|$)/;
const BODY_SHAPES: Record<string, z.ZodType[]> = {
  '/api/sync/insert': [saveSyncBody, saveReplicationBody],
  '/api/sync/AddSyncInfo': [saveSyncBody],
  '/api/sync/AddSyncInfoWasabi': [saveReplicationBody],
};

let server: TestServer;
let s3rver: TestStoreServer;
let azurite: TestStoreServer;
let token: string;
let deviceToken: string;
let accountId: string;
let requestToken: string;
const BUCKET = 'fuzz-bucket';
const serverErrors: string[] = [];

beforeAll(async () => {
  [s3rver, azurite] = await Promise.all([startS3rver(), startAzurite()]);
  const logLines: string[] = [];
  // Every provider points at a server on this machine: no request of the fuzz may leave it (TESTING.md).
  const endpoints = Object.fromEntries(
    PROVIDER_NAMES.map((provider) => [provider, provider === 'azure' ? azurite.endpoint : s3rver.endpoint]),
  );
  server = await startTestServer({ PROVIDER_ENDPOINTS: JSON.stringify(endpoints) }, logLines);
  // Keep only what explains a 500: the error handler's own line.
  logLines.push = (...lines: string[]) => {
    for (const line of lines) if (line.includes('unhandled error')) serverErrors.push(line);
    return serverErrors.length;
  };
  const owner = await signedInMember(server, 'fuzz');
  token = owner.token;
  const insert = await callApi(server, 'POST', '/api/cloudaccount/insert', token, {
    cloudType: 1,
    name: 'Fuzz AWS',
    accessKey: S3RVER_KEY,
    secretKey: S3RVER_KEY,
  });
  if (insert.status !== 201) throw new Error(`connecting the s3rver account answered ${insert.status}`);
  accountId = (insert.body as { id: string }).id;
  // Transfers and moves answer 403 until the charges are confirmed; the sign-in calls 400 without a form token.
  const confirm = await callApi(server, 'PUT', '/api/organizations/_me', token, {
    confirmed_c2c: true,
    confirmed_ftx: true,
    confirmed_wasabi: true,
  });
  if (confirm.status !== 200)
    throw new Error(`confirming the charges answered ${confirm.status}: ${confirm.raw}`);
  const code = await callApi(server, 'POST', '/api/agent/pairing-codes', token);
  const paired = await server.app.inject({
    method: 'POST',
    url: '/api/agent/devices',
    payload: { code: (code.body as { code: string }).code, name: 'fuzz', platform: 'linux', version: '1' },
  });
  if (paired.statusCode !== 201) throw new Error(`pairing the fuzz agent answered ${paired.statusCode}`);
  deviceToken = (paired.json() as { token: string }).token;
  const form = await server.app.inject({ method: 'POST', url: '/api/authentication/request_token' });
  requestToken = (form.json() as { token: string }).token;
  const bucket = await callApi(server, 'POST', `/api/cloud_accounts/${accountId}/storages`, token, {
    bucket_name: BUCKET,
    region: 'us-east-1',
  });
  if (bucket.status >= 300)
    throw new Error(`creating the fuzz bucket answered ${bucket.status}: ${bucket.raw}`);
  // An object named like every sampled key, so shares, downloads and moves find what they are asked for.
  const store = s3rverStore(s3rver.endpoint);
  await store.write(BUCKET, BUCKET, Buffer.from('fuzz'));
  await store.close();
}, 60_000);
afterAll(async () => {
  await server?.stop();
  await Promise.all([s3rver?.stop(), azurite?.stop()]);
});

function resolve(schema: JsonSchema | undefined, doc: OpenApiDocument): JsonSchema {
  if (!schema) return {};
  if (schema.$ref) {
    const name = schema.$ref.replace('#/components/schemas/', '');
    return resolve(doc.components?.schemas?.[name], doc);
  }
  return schema;
}

function typesOf(schema: JsonSchema): string[] {
  if (schema.type === undefined) return [];
  return Array.isArray(schema.type) ? schema.type : [schema.type];
}

/** A plausible valid value for a field: the fuzz account and bucket, a strong password, a local webhook. */
function sample(schema: JsonSchema, name: string, doc: OpenApiDocument): unknown {
  const s = resolve(schema, doc);
  if (s.const !== undefined) return s.const;
  if (s.enum?.length) return s.enum[0];
  const options = s.anyOf ?? s.oneOf;
  if (options) {
    const first = options.map((o) => resolve(o, doc)).find((o) => !typesOf(o).includes('null'));
    return first ? sample(first, name, doc) : null;
  }
  if (s.allOf) return Object.assign({}, ...(s.allOf.map((part) => sample(part, name, doc)) as object[]));
  const type = typesOf(s).find((t) => t !== 'null');
  switch (type) {
    case 'object': {
      const value: Record<string, unknown> = {};
      for (const [key, property] of Object.entries(s.properties ?? {})) {
        // An optional token (an invitation's, say) would only be refused as unknown before the odd value is read.
        if (/token/i.test(key) && !s.required?.includes(key)) continue;
        value[key] = sample(property, key, doc);
      }
      return value;
    }
    case 'array':
      return Array.from({ length: Math.max(1, s.minItems ?? 1) }, () => sample(s.items ?? {}, name, doc));
    case 'integer':
    case 'number': {
      if (typeof s.default === 'number') return s.default;
      const low = s.minimum ?? (s.exclusiveMinimum === undefined ? 1 : s.exclusiveMinimum + 1);
      return Math.min(Math.max(low, 1), s.maximum ?? Number.MAX_SAFE_INTEGER);
    }
    case 'boolean':
      // true opens the optional paths (permissions, CORS, acceleration) a false would skip.
      return true;
    case 'string':
      return sampleText(s, name);
    default:
      return null;
  }
}

function sampleText(s: JsonSchema, name: string): string {
  if (s.format === 'uuid') return accountId;
  if (s.format === 'date-time') return new Date().toISOString();
  if (s.format === 'email' || /mail|username|recipient|acct_name/i.test(name)) return 'fuzz@example.com';
  if (s.pattern?.startsWith('^\\d+')) return '1';
  if (/password/i.test(name)) return 'Sunny#day7';
  if (name === 'requestToken') return requestToken;
  if (/access_?key|secret_?key/i.test(name)) return S3RVER_KEY;
  // Only loopback targets here (TESTING.md): a closed port on this machine.
  if (/url/i.test(name)) return 'http://127.0.0.1:9/hook';
  if (/region/i.test(name)) return 'us-east-1';
  if (name === 'service_code') return 'aws';
  if (name === 'direction') return 'c2c';
  if (/code/i.test(name)) return '123456';
  if (/^id$/.test(name)) return `${accountId}/${BUCKET}`;
  return BUCKET;
}

/** Every leaf (string or number) of a schema, with the path to it in a sampled value. */
function leaves(
  schema: JsonSchema,
  doc: OpenApiDocument,
  at: Path = [],
): Array<{ path: Path; kinds: string[] }> {
  const s = resolve(schema, doc);
  const options = s.anyOf ?? s.oneOf;
  if (options) {
    const found = options.flatMap((option) => leaves(option, doc, at));
    const byPath = new Map<string, { path: Path; kinds: string[] }>();
    for (const leaf of found) {
      const key = JSON.stringify(leaf.path);
      const known = byPath.get(key);
      if (known) known.kinds = [...new Set([...known.kinds, ...leaf.kinds])];
      else byPath.set(key, { ...leaf });
    }
    return [...byPath.values()];
  }
  const type = typesOf(s).find((t) => t !== 'null');
  if (type === 'object')
    return Object.entries(s.properties ?? {}).flatMap(([key, property]) =>
      leaves(property, doc, [...at, key]),
    );
  if (type === 'array') return leaves(s.items ?? {}, doc, [...at, 0]);
  if (type === 'string') return [{ path: at, kinds: ['string'] }];
  if (type === 'number' || type === 'integer') return [{ path: at, kinds: ['number'] }];
  return [];
}

function valueAt(value: unknown, path: Path): unknown {
  let cursor = value;
  for (const step of path) cursor = (cursor as Record<string | number, unknown> | undefined)?.[step];
  return cursor;
}

function withValue(base: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  const copy: unknown = structuredClone(base);
  let cursor = copy as Record<string | number, unknown>;
  for (const step of path.slice(0, -1)) {
    if (typeof cursor[step] !== 'object' || cursor[step] === null)
      cursor[step] = typeof step === 'number' ? [] : {};
    cursor = cursor[step] as Record<string | number, unknown>;
  }
  cursor[path[path.length - 1] as string | number] = value;
  return copy;
}

function oddValuesFor(kinds: string[], field: JsonSchema): Array<[string, unknown]> {
  const values: Array<[string, unknown]> = [];
  // The longest text and the largest number the schema admits must also fit the column they land in.
  const { maxLength, maximum } = field;
  if (kinds.includes('string')) {
    values.push(...ODD_STRINGS);
    if (maxLength !== undefined && maxLength <= 100_000)
      values.push([`${maxLength} × é`, 'é'.repeat(maxLength)]);
  }
  if (kinds.includes('number')) {
    values.push(...ODD_NUMBERS);
    if (maximum !== undefined) values.push([`its maximum ${maximum}`, maximum]);
  }
  return values;
}

function schemaAt(schema: JsonSchema, path: Path, doc: OpenApiDocument): JsonSchema {
  let s = resolve(schema, doc);
  for (const step of path) {
    const options = s.anyOf ?? s.oneOf;
    if (options)
      s = resolve(options.find((o) => typesOf(resolve(o, doc)).some((t) => t !== 'null')) ?? {}, doc);
    s = resolve(typeof step === 'number' ? s.items : s.properties?.[step], doc);
  }
  const options = s.anyOf ?? s.oneOf;
  if (!options) return s;
  const bounded = options.map((o) => resolve(o, doc));
  return {
    maxLength: bounded.find((o) => o.maxLength !== undefined)?.maxLength,
    maximum: bounded.find((o) => o.maximum !== undefined)?.maximum,
  };
}

function queryString(values: Record<string, string>): string {
  const pairs = Object.entries(values).map(([key, value]) => `${encodeURIComponent(key)}=${value}`);
  return pairs.length ? `?${pairs.join('&')}` : '';
}

/** The cases of one route: each input field in turn takes every odd value, the others stay valid. */
function casesOf(method: Method, template: string, operation: Operation, doc: OpenApiDocument): FuzzCase[] {
  const parameters = operation.parameters ?? [];
  const pathParams = parameters.filter((p) => p.in === 'path');
  const queryParams = parameters.filter((p) => p.in === 'query');
  const encode = (value: unknown) => encodeURIComponent(String(value));
  const validPath = Object.fromEntries(
    pathParams.map((p) => [p.name, encode(sample(p.schema ?? {}, p.name, doc))]),
  );
  const validQuery = Object.fromEntries(
    queryParams.map((p) => [p.name, encode(sample(p.schema ?? {}, p.name, doc))]),
  );
  const urlOf = (pathValues: Record<string, string>, query: Record<string, string>) =>
    template.replace(/\{(\w+)\}/g, (_, name: string) => pathValues[name] ?? '') + queryString(query);
  const validUrl = urlOf(validPath, validQuery);

  const shapes = BODY_SHAPES[template]?.map((shape) => z.toJSONSchema(shape, { io: 'input' }) as JsonSchema);
  const documented = operation.requestBody?.content?.['application/json']?.schema;
  const bodySchemas = shapes ?? (documented ? [documented] : []);
  const cases: FuzzCase[] = [];
  // Each case its own e-mail address, so a sign-up is not refused as a duplicate before the odd value is stored.
  const add = (url: string, body: unknown, label: string) =>
    cases.push({
      method,
      url,
      body: JSON.stringify(body).replaceAll('fuzz@example.com', `fuzz.${cases.length}@example.com`),
      authenticated: true,
      label,
    });

  for (const bodySchema of bodySchemas) {
    const base = sample(bodySchema, 'body', doc);
    for (const leaf of leaves(bodySchema, doc)) {
      const label = `body.${leaf.path.join('.')}`;
      for (const [name, value] of oddValuesFor(leaf.kinds, schemaAt(bodySchema, leaf.path, doc)))
        add(validUrl, withValue(base, leaf.path, value), `${label} = ${name}`);
      // The odd character inside an otherwise valid value (an e-mail address, a key) passes the field's own rules.
      const valid = valueAt(base, leaf.path);
      if (typeof valid === 'string' && valid.length > 1)
        for (const [name, odd] of INSIDE_VALID)
          add(
            validUrl,
            withValue(base, leaf.path, valid[0] + odd + valid.slice(1)),
            `${label} = ${name} inside`,
          );
    }
  }
  const validBody = bodySchemas[0] ? JSON.stringify(sample(bodySchemas[0], 'body', doc)) : undefined;
  for (const param of pathParams)
    for (const [name, value] of ODD_URL_VALUES)
      cases.push({
        method,
        url: urlOf({ ...validPath, [param.name]: value }, validQuery),
        body: validBody,
        authenticated: true,
        label: `path ${param.name} = ${name}`,
      });
  for (const param of queryParams) {
    // The largest page, offset or limit the schema admits must also be served.
    const { maximum } = resolve(param.schema, doc);
    const bounds: Array<[string, string]> =
      maximum === undefined ? [] : [[`its maximum ${maximum}`, String(maximum)]];
    for (const [name, value] of [...ODD_URL_VALUES, ...bounds])
      cases.push({
        method,
        url: urlOf(validPath, { ...validQuery, [param.name]: value }),
        body: validBody,
        authenticated: true,
        label: `query ${param.name} = ${name}`,
      });
  }
  if (bodySchemas.length)
    for (const [name, body] of WRONG_BODIES)
      cases.push({ method, url: validUrl, body, authenticated: true, label: name });
  if (!cases.length) cases.push({ method, url: validUrl, authenticated: true, label: 'no input' });
  // Public routes meet the same values from visitors: the first cases again without a bearer.
  const anonymous = cases
    .slice(0, 12)
    .map((c) => ({ ...c, authenticated: false, label: `${c.label} (signed out)` }));
  return [...cases.slice(0, CASES_PER_ROUTE), ...anonymous];
}

async function send(fuzz: FuzzCase) {
  const headers: Record<string, string> = {};
  if (fuzz.authenticated)
    headers.authorization = DEVICE_ONLY.test(fuzz.url) ? `Agent ${deviceToken}` : `Bearer ${token}`;
  if (fuzz.body !== undefined) headers['content-type'] = 'application/json';
  const res = await server.app.inject({ method: fuzz.method, url: fuzz.url, headers, payload: fuzz.body });
  return { status: res.statusCode, body: res.body.slice(0, 200) };
}

async function runAll<T>(items: T[], worker: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < items.length) await worker(items[next++] as T);
    }),
  );
}

async function openApiDocument(): Promise<OpenApiDocument> {
  const response = await server.app.inject({ method: 'GET', url: '/api/docs/json' });
  expect(response.statusCode).toBe(200);
  return response.json() as OpenApiDocument;
}

/** Strings and numbers of an input schema that carry no bound (server-local schemas included). */
function unbounded(schema: JsonSchema | undefined, doc: OpenApiDocument, at: string, found: string[]) {
  const s = resolve(schema, doc);
  for (const option of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])])
    unbounded(option, doc, at, found);
  if (s.enum || s.const !== undefined) return;
  const types = typesOf(s);
  if (
    types.includes('string') &&
    !['uuid', 'date-time'].includes(s.format ?? '') &&
    s.maxLength === undefined
  )
    found.push(`${at}: string without maxLength`);
  if (
    (types.includes('number') || types.includes('integer')) &&
    (s.maximum === undefined || (s.minimum === undefined && s.exclusiveMinimum === undefined))
  )
    found.push(`${at}: number without minimum and maximum`);
  for (const [key, property] of Object.entries(s.properties ?? {}))
    unbounded(property, doc, `${at}.${key}`, found);
  if (s.items) unbounded(s.items, doc, `${at}[]`, found);
}

describe('odd text and numbers on every route (Fastify app, PostgreSQL, s3rver)', () => {
  it('replays finding 4 of issue 20: 400 with the field and its words, not 500', async () => {
    const signUp = await callApi(server, 'POST', '/api/users', token, {
      email: 'nul@example.com',
      password: 'Sunny#day7',
      first_name: 'a\u0000b',
      last_name: 'Test',
    });
    expect([signUp.status, signUp.body]).toEqual([
      400,
      expect.objectContaining({
        message: messages.textInvalid,
        errors: { first_name: [messages.textInvalid] },
      }),
    ]);
    const move = await callApi(server, 'POST', '/api/c2c/moveaws', token, {
      files: [{ path: LONE_HIGH, bucket_name: BUCKET }],
      cloud_id: accountId,
      type: 1,
      destination: { cloud_id: accountId, bucket_name: BUCKET, path: 'copies' },
    });
    expect([move.status, move.body]).toEqual([
      400,
      expect.objectContaining({ message: messages.textInvalid }),
    ]);
    const cost = await callApi(server, 'POST', '/api/transfer/calculate_cost', token, {
      sourceCloudAccountId: accountId,
      destinationCloudAccountId: accountId,
      size: 1e308,
    });
    expect([cost.status, cost.body]).toEqual([
      400,
      expect.objectContaining({ message: transferMessages.calculatorSizeMax }),
    ]);
  });

  it('answers a body that is not JSON with 400 and its own words', async () => {
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/authentication/Login',
      headers: { 'content-type': 'application/json' },
      payload: '{"username":"\\x"}',
    });
    expect([res.statusCode, res.json()]).toEqual([
      400,
      expect.objectContaining({ message: 'The request body is not valid JSON.' }),
    ]);
  });

  it('documents a bound for every string and number a route reads', async () => {
    const doc = await openApiDocument();
    const found: string[] = [];
    for (const [template, operations] of Object.entries(doc.paths))
      for (const [method, operation] of Object.entries(operations)) {
        const route = `${method.toUpperCase()} ${template}`;
        for (const parameter of operation.parameters ?? [])
          unbounded(parameter.schema, doc, `${route} ${parameter.in} ${parameter.name}`, found);
        unbounded(operation.requestBody?.content?.['application/json']?.schema, doc, `${route} body`, found);
      }
    expect(found).toEqual([]);
  });

  it('never answer a 5xx', async () => {
    const doc = await openApiDocument();
    const routes = Object.entries(doc.paths).flatMap(([template, operations]) =>
      Object.entries(operations)
        .map(([method, operation]) => ({ method: method.toUpperCase() as Method, template, operation }))
        .filter(
          ({ method, template }) =>
            ['GET', 'POST', 'PUT', 'DELETE'].includes(method) && !SKIPPED.has(`${method} ${template}`),
        ),
    );
    expect(routes.length).toBeGreaterThan(70);
    // Deletes last, so what they remove cannot hide a deeper path of another route.
    routes.sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
    const cases = routes.flatMap(({ method, template, operation }) =>
      casesOf(method, template, operation, doc),
    );
    const failures: string[] = [];
    const libraryWords: string[] = [];
    await runAll(cases, async (fuzz) => {
      const res = await send(fuzz);
      if (res.status >= 500)
        failures.push(`${res.status} ${fuzz.method} ${fuzz.url.slice(0, 120)} — ${fuzz.label}: ${res.body}`);
      else if (ZOD_TEXT.test(res.body))
        libraryWords.push(
          `${res.status} ${fuzz.method} ${fuzz.url.slice(0, 120)} — ${fuzz.label}: ${res.body}`,
        );
    });
    const causes = [
      ...new Set(
        serverErrors.map((line) => /"message":"([^"]{0,200})/.exec(line)?.[1] ?? line.slice(0, 200)),
      ),
    ];
    expect(
      failures,
      `${failures.length} of ${cases.length} requests answered 5xx:\n${failures.join('\n')}\ncauses:\n${causes.join('\n')}`,
    ).toEqual([]);
    // A refusal is in words that name the field (contract zod-words.ts), never the validation library's own text.
    expect(libraryWords.slice(0, 20), `${libraryWords.length} answers in the library's words`).toEqual([]);
  }, 180_000);
});
