import fs from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Transporter } from 'nodemailer';
import type { Logger } from '../logger.ts';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The action link of the mail; logged only when mail goes to files (no SMTP configured). */
  link?: string;
}

/** Sends mail through SMTP_URL, or writes .eml files to DATA_DIR/mail when no SMTP server is configured. */
export class MailService {
  /** nodemailer is loaded with the first mail: a worker that sends none does not hold it (bench/worker-idle). */
  #transport: Promise<Transporter> | undefined;
  readonly #toFiles: boolean;

  constructor(
    private readonly options: { smtpUrl?: string; from: string; dataDir: string },
    private readonly log: Logger,
  ) {
    this.#toFiles = !options.smtpUrl;
  }

  #transporter(): Promise<Transporter> {
    const { smtpUrl } = this.options;
    this.#transport ??= import('nodemailer').then(({ default: nodemailer }) =>
      smtpUrl
        ? nodemailer.createTransport(smtpUrl)
        : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }),
    );
    return this.#transport;
  }

  async send(mail: OutgoingMail): Promise<void> {
    const transport = await this.#transporter();
    const info = await transport.sendMail({
      from: this.options.from,
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      html: mail.html,
    });
    if (!this.#toFiles) {
      this.log.info({ messageId: info.messageId }, 'mail sent');
      return;
    }
    const dir = path.join(this.options.dataDir, 'mail');
    await fs.mkdir(dir, { recursive: true, mode: 0o700 });
    const file = path.join(
      dir,
      `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(3).toString('hex')}.eml`,
    );
    await fs.writeFile(file, (info as unknown as { message: Buffer }).message, { mode: 0o600 });
    this.log.info(
      { file, link: mail.link },
      `no SMTP_URL configured: mail "${mail.subject}" written to a file`,
    );
  }

  close() {
    void this.#transport?.then((transport) => transport.close());
  }
}
