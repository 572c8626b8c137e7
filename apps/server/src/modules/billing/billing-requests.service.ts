import {
  billingMessages,
  packageByHandle,
  PACKAGES,
  type BillingPeriod,
  type PackageDefinition,
} from '@cumulo/contract';
import type { Principal } from '../../authz/principal.ts';
import { badRequest } from '../../errors.ts';
import type { Logger } from '../../logger.ts';
import type { MailService } from '../../mail/mail.service.ts';
import type { BillingRepo } from './billing.repo.ts';
import { ownerRequestMail } from './billing.mail.ts';

/** A bell entry for the organisation's Owners only. */
type OwnerBell = (notice: {
  organizationId: string;
  title: string;
  description: string;
  status: 'normal';
  link: string;
  audience: 'owners';
}) => Promise<void>;

/**
 * Members' requests to their Owners (spec 002 §6, §7): a package, a quote, more quota. Any member may ask; a
 * request from someone who is not an Owner reaches the Owners' bell and mailbox.
 */
export class BillingRequests {
  constructor(
    private readonly repo: BillingRepo,
    private readonly mail: MailService,
    private readonly bell: OwnerBell,
    private readonly publicUrl: string,
    private readonly log: Logger,
  ) {}

  async requestQuote(principal: Principal, body: { message: string; package_id?: string }) {
    const pkg = body.package_id ? this.#packageNamed(body.package_id) : undefined;
    return this.#askOwners(principal, {
      kind: 'quote',
      subject: pkg?.handle ?? null,
      message: body.message,
      title: 'A quote is requested',
      description: (name) => `${name} asks for a quote${pkg ? ` for ${pkg.title}` : ''}: ${body.message}`,
      link: '/plan',
    });
  }

  async requestService(principal: Principal, body: { service_name: string; plan: BillingPeriod }) {
    const pkg = this.#packageNamed(body.service_name);
    if (!pkg) throw badRequest(billingMessages.unknownProduct);
    return this.#askOwners(principal, {
      kind: 'package',
      subject: pkg.handle,
      message: body.plan,
      title: `${pkg.title} is requested`,
      description: (name) => `${name} asks you to activate the ${pkg.title} package (${body.plan}).`,
      link: '/pricings',
    });
  }

  async requestExtension(principal: Principal, body: { message: string }) {
    return this.#askOwners(principal, {
      kind: 'quota_extension',
      subject: null,
      message: body.message,
      title: 'A quota extension is requested',
      description: (name) => `${name} asks for a higher quota limit: ${body.message}`,
      link: '/billing',
    });
  }

  #packageNamed(name: string): PackageDefinition | undefined {
    return packageByHandle(name) ?? PACKAGES.find((p) => p.title.toLowerCase() === name.toLowerCase());
  }

  async #askOwners(
    principal: Principal,
    request: {
      kind: 'package' | 'quote' | 'service' | 'quota_extension';
      subject: string | null;
      message: string;
      title: string;
      description: (requester: string) => string;
      link: string;
    },
  ) {
    const org = principal.organizationId;
    await this.repo.insertRequest({
      organizationId: org,
      requesterId: principal.userId,
      kind: request.kind,
      subject: request.subject,
      message: request.message,
    });
    // An Owner asking for a quote asks us, not themselves: the request is kept for the operator.
    if (principal.role === 'Owner') return { message: billingMessages.messageSent };
    const member = await this.repo.member(org, principal.userId);
    const name = member ? `${member.firstName} ${member.lastName}`.trim() || member.email : 'A member';
    const description = request.description(name);
    await this.bell({
      organizationId: org,
      title: request.title,
      description,
      status: 'normal',
      link: request.link,
      audience: 'owners',
    });
    for (const owner of await this.repo.owners(org)) {
      try {
        await this.mail.send(
          ownerRequestMail(
            owner.email,
            owner.firstName,
            request.title,
            description,
            `${this.publicUrl}${request.link}`,
          ),
        );
      } catch (error) {
        // The bell already carries the request; a mail outage must not fail the member's call.
        this.log.warn({ err: error, organizationId: org }, 'billing request e-mail could not be sent');
      }
    }
    return { message: billingMessages.requestSent };
  }
}
