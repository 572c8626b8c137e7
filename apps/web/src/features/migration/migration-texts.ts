import { AGENT_COST_PER_MB, TRANSFER_CHARGE_PER_GB } from '@cumulo/contract';

/** Texts the spec leaves to us (its own quoted texts come from the contract's transferMessages). */
export const migrationTexts = {
  chargesLink: 'Know your charges... Click here to find out more',
  ftxUnavailable:
    'The ftX transfer agent is not part of this Cumulo build, so ftX transfers cannot start here. Choose Direct to transfer between cloud accounts.',
  sameBucketIgnored: 'Source and destination are the same bucket: nothing was transferred.',
  oneSideOnly: 'Select files on one side only: the transfer goes from that side to the other.',
  localIsSourceOnly: 'Local files are uploaded with the Upload button of the left panel.',
  chooseBuckets: 'Choose an account and a bucket on both sides first.',
  prefixNeeded: 'Tick the prefix box and enter a prefix to copy using a prefix.',
  startedBody: 'Your transfer has been queued. Follow its progress on the Transfer Status page.',
  chargeRate: `Cloud to cloud transfers are charged $${TRANSFER_CHARGE_PER_GB.toFixed(2)} per GB transferred.`,
  chargeBulk: 'Bulk licences are available: contact us for a bulk licence if you move large volumes.',
  chargeAsk: 'Please confirm the charge for your organisation to start cloud to cloud transfers.',
  chargeNoBilling:
    'Your organisation has no payment method yet: after Confirm, add a credit card and the charge is confirmed with it.',
  chargeConfirmed: 'Cloud to cloud transfer charge confirmed. You can start your transfer now.',
  ftxChargeRate: `Transfers through the ftX transfer agent are charged $${(AGENT_COST_PER_MB * 1024).toFixed(2)} per GB transferred.`,
  ftxChargeAsk: 'Please confirm the charge for your organisation to start ftX transfers.',
  ftxChargeConfirmed: 'ftX transfer charge confirmed. You can start your transfer now.',
  noObjects: 'No objects found under this prefix',
  bandwidthHint:
    'Paces the bytes Cumulo reads from the source. A copy within one provider account runs server-side and is not limited.',
} as const;
