import { AGENT_COST_PER_MB, TRANSFER_CHARGE_PER_GB } from '@cumulo/contract';

/** Texts the spec leaves to us (its own quoted texts come from the contract's transferMessages). */
export const migrationTexts = {
  chargesLink: 'Know your charges... Click here to find out more',
  ftxCopyOnly:
    'ftX transfers copy only: a move would delete the files from your machine (or from the bucket) once copied.',
  ftxPickLocalFolder:
    'Open one of the agent’s folders on the left first: a download goes into the open folder.',
  ftxPair: 'Pair the transfer agent on the Cumulo Transfer page',
  ftxStartedBody:
    'The transfer agent is copying your files. Follow its progress in the Transfers panel of the Cumulo Transfer page.',
  ftxBucketCopies:
    'Copy Entire Buckets and Copy Using Prefix copy between cloud accounts, not through ftX. Select files of the transfer agent on the left and use Copy to Destination.',
  ftxChooseDestination: 'Choose the destination account and bucket first.',
  sameBucketIgnored: 'Source and destination are the same bucket: nothing was transferred.',
  oneSideOnly: 'Select files on one side only: the transfer goes from that side to the other.',
  localIsSourceOnly: 'Local files are uploaded with the Upload button of the left panel.',
  chooseBuckets: 'Choose an account and a bucket on both sides first.',
  noWasabiAccount: 'Your organisation has no Wasabi account yet: add one to copy into Wasabi.',
  prefixNeeded: 'Tick the prefix box and enter a prefix to copy using a prefix.',
  startedBody: 'Your transfer has been queued. Follow its progress on the Transfer Status page.',
  chargeRate: `Cloud to cloud transfers are charged $${TRANSFER_CHARGE_PER_GB.toFixed(2)} per GB transferred.`,
  chargeBulk: 'Bulk licences are available: contact us for a bulk licence if you move large volumes.',
  chargeAsk: 'Please confirm the charge for your organisation to start cloud to cloud transfers.',
  chargeNoBilling:
    'Your organisation has no payment method yet: after Confirm, add a credit card and the charge is confirmed with it.',
  chargeConfirmed: 'Cloud to cloud transfer charge confirmed. You can start your transfer now.',
  ftxChargeRate: `Transfers through the ftX transfer agent are charged $${(AGENT_COST_PER_MB * 1024).toFixed(2)} per GB moved ($${AGENT_COST_PER_MB.toFixed(6)} per MB).`,
  ftxChargeAsk: 'Please confirm the charge for your organisation to start ftX transfers.',
  ftxChargeConfirmed: 'ftX transfer charge confirmed. You can start your transfer now.',
  noObjects: 'No objects found under this prefix',
  bandwidthHint:
    'Paces the bytes Cumulo reads from the source. A copy within one provider account runs server-side and is not limited.',
} as const;
