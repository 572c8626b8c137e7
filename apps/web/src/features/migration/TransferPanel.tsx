import type { ReactNode } from 'react';
import { Card, Empty, Space } from 'antd';
import type { CloudAccountView } from '@cumulo/contract';
import { AccountBucketSelects } from './AccountBucketSelects.tsx';
import { PanelFileList } from './PanelFileList.tsx';
import {
  LOCAL_ACCOUNT,
  type PanelFile,
  type PanelLocation,
  type PanelOverlay,
  type Side,
} from './transfer-screen-state.ts';

const SIDE_TEXT = {
  source: {
    title: 'Step 1: Select Source',
    account: 'Source Account',
    bucket: 'Source Bucket',
    files: 'Source files',
  },
  destination: {
    title: 'Step 2: Select Destination',
    account: 'Destination Account',
    bucket: 'Destination Bucket',
    files: 'Destination files',
  },
} as const;

export interface TransferPanelProps {
  side: Side;
  accounts: readonly CloudAccountView[];
  accountsLoading: boolean;
  location: PanelLocation;
  selected: readonly PanelFile[];
  order: readonly string[];
  overlay: PanelOverlay;
  onAccountChange(accountId: string): void;
  onBucketChange(bucket: string): void;
  onOpenFolder(path: string): void;
  onSelect(files: PanelFile[]): void;
  onReorder(order: string[]): void;
  onDropFromOther(from: Side, files: PanelFile[]): void;
  /** Shown instead of the file list when the source is "Local" (the local upload area). */
  localArea?: ReactNode;
  /** With type ftX, the left panel is the agent's local files instead of a bucket (spec 001 §2). */
  ftxBrowser?: ReactNode;
  /** Shown under the pickers (the destination's transfer type and Transfer Status). */
  extra?: ReactNode;
  /** Shown instead of the file list when the panel has no account to offer (/wasabic2c: add a Wasabi account). */
  noAccounts?: ReactNode;
}

/** One panel of the two-panel transfer screen (spec 001 §2): its step title, pickers and files. */
export function TransferPanel(props: TransferPanelProps) {
  const text = SIDE_TEXT[props.side];
  const { location } = props;
  const local = location.accountId === LOCAL_ACCOUNT;
  return (
    <Card title={text.title} style={{ height: '100%' }}>
      <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
        <AccountBucketSelects
          accountLabel={text.account}
          bucketLabel={text.bucket}
          accounts={props.accounts}
          extraAccounts={props.side === 'source' ? [{ value: LOCAL_ACCOUNT, label: 'Local' }] : []}
          loading={props.accountsLoading}
          accountId={location.accountId}
          bucket={location.bucket}
          showBucket={!local && !props.ftxBrowser}
          onAccountChange={props.onAccountChange}
          onBucketChange={props.onBucketChange}
        />
        {props.extra}
        {props.ftxBrowser ? (
          props.ftxBrowser
        ) : local ? (
          props.localArea
        ) : location.accountId && location.bucket ? (
          <PanelFileList
            key={`${location.accountId}/${location.bucket}`}
            side={props.side}
            label={text.files}
            accountId={location.accountId}
            bucket={location.bucket}
            path={location.path}
            selected={props.selected}
            order={props.order}
            overlay={props.overlay}
            onSelect={props.onSelect}
            onOpenFolder={props.onOpenFolder}
            onReorder={props.onReorder}
            onDropFromOther={props.onDropFromOther}
          />
        ) : props.noAccounts && !props.accountsLoading && props.accounts.length === 0 ? (
          props.noAccounts
        ) : (
          <Empty description="Select an account and a bucket to see its files" />
        )}
      </Space>
    </Card>
  );
}
