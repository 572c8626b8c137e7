import { AppError, badRequest } from '../../errors.ts';

/** What the Wasabi tab's "create" path needs to know about the partner API. */
export interface WasabiCreateInfo {
  enabled: boolean;
  message: string;
}

const WASABI_CREATE_DISABLED =
  'Creating new Wasabi accounts needs a Wasabi partner (Account Control API) key. An administrator enables it ' +
  'by setting WASABI_PARTNER_URL and WASABI_PARTNER_API_KEY on the Cumulo server. Until then, create the ' +
  'account at wasabi.com and connect it on the "Connect Existing Account" tab.';

/**
 * Creates Wasabi sub-accounts through Wasabi's Account Control API (POST {url}/v1/accounts, API key in the
 * Authorization header; the answer carries the new account's access and secret keys).
 */
export class WasabiPartnerClient {
  constructor(
    private readonly url: string | undefined,
    private readonly apiKey: string | undefined,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  info(): WasabiCreateInfo {
    return this.url && this.apiKey
      ? { enabled: true, message: 'New Wasabi accounts are created through the Wasabi partner API.' }
      : { enabled: false, message: WASABI_CREATE_DISABLED };
  }

  async createAccount(acctName: string, password: string): Promise<{ accessKey: string; secretKey: string }> {
    if (!this.url || !this.apiKey) throw badRequest(WASABI_CREATE_DISABLED);
    let answer: Response;
    try {
      answer = await this.fetchImpl(
        new URL('v1/accounts', this.url.endsWith('/') ? this.url : `${this.url}/`),
        {
          method: 'POST',
          headers: { Authorization: this.apiKey, 'Content-Type': 'application/json' },
          body: JSON.stringify({ AcctName: acctName, Password: password, IsTrial: false }),
          signal: AbortSignal.timeout(30_000),
        },
      );
    } catch (error) {
      throw new AppError(
        502,
        'WASABI_PARTNER_UNREACHABLE',
        `The Wasabi partner API could not be reached: ${
          error instanceof Error ? error.message : String(error)
        }`,
      );
    }
    const text = await answer.text();
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // A non-JSON answer is reported by status below.
    }
    if (!answer.ok) {
      const message = [body.Msg, body.message, body.Message].find((m) => typeof m === 'string');
      throw badRequest(
        typeof message === 'string' ? message : `Wasabi refused the account (HTTP ${answer.status}).`,
      );
    }
    const accessKey = body.AccessKey ?? body.AcctAccessKey;
    const secretKey = body.SecretKey ?? body.AcctSecretKey;
    if (typeof accessKey !== 'string' || typeof secretKey !== 'string') {
      throw new AppError(
        502,
        'WASABI_PARTNER_ANSWER',
        'The Wasabi partner API did not return the new account keys.',
      );
    }
    return { accessKey, secretKey };
  }
}
