import { useState } from 'react';
import { Alert, App, Button, Card, Flex, Input, Modal, Result, Select, Typography } from 'antd';
import { CloseOutlined, DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { Link } from 'react-router';
import {
  ENCODING_PRICE_PER_GB,
  encodingPrice,
  formatBytes,
  mediaMessages,
  type CloudAccountView,
  type EncodeBody,
  type EncodingPresets,
} from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { useCloudAccounts } from '../accounts/accounts-api.ts';
import { useQuotaGate } from '../billing/useQuotaGate.tsx';
import { useProfile } from '../profile/useProfile.ts';
import type { BrowserFile } from '../browser/BucketBrowser.tsx';
import { useEncode, useEncodingPresets } from './encoding-api.ts';

/** One preset of one file with where its output goes; every field is empty until the member picks it. */
export interface PresetDraft {
  id: number;
  category?: string;
  preset?: string;
  accountId?: string;
  bucket?: string;
  /** A folder of the bucket, as typed. */
  folder: string;
}

export interface EncodeDraft {
  file: BrowserFile;
  presets: PresetDraft[];
}

/** A typed folder as the server takes it: no leading or doubled slashes, '' or ending with '/'. */
export function folderPath(typed: string): string {
  const parts = typed.split('/').filter((part) => part.trim() !== '');
  return parts.length === 0 ? '' : `${parts.join('/')}/`;
}

/** Source bytes the request reads: each file once per preset (the price and the quota count these). */
export const encodeBytes = (drafts: readonly EncodeDraft[]) =>
  drafts.reduce((sum, draft) => sum + draft.file.size * draft.presets.length, 0);

/**
 * Spec 001 §5's encode rules, in its words: the first one broken, or the request body when none is. A preset
 * needs its destination account and bucket first, then its category and preset.
 */
export function checkEncode(drafts: readonly EncodeDraft[]): { problem: string } | { body: EncodeBody } {
  if (drafts.length === 0) return { problem: mediaMessages.fileRequired };
  const body: EncodeBody = [];
  for (const { file, presets } of drafts) {
    if (presets.length === 0) return { problem: mediaMessages.destinationRequired };
    const item: EncodeBody[number] = {
      source: { cloud_account_id: file.accountId, bucket_name: file.bucket, path: file.path },
      presets: [],
    };
    for (const draft of presets) {
      if (!draft.accountId || !draft.bucket) return { problem: mediaMessages.destinationRequired };
      const path = folderPath(draft.folder);
      if (!draft.category || !draft.preset) {
        return {
          problem: mediaMessages.presetRequired(
            file.path,
            draft.category ?? 'no category',
            `${draft.bucket}/${path}`,
          ),
        };
      }
      item.presets.push({
        category: draft.category,
        preset: draft.preset,
        destination: { cloud_account_id: draft.accountId, bucket_name: draft.bucket, path },
      });
    }
    body.push(item);
  }
  return { body };
}

interface PresetRowProps {
  draft: PresetDraft;
  label: string;
  catalogue: EncodingPresets['transcode_presets'];
  accounts: readonly CloudAccountView[];
  onChange(next: PresetDraft): void;
  onRemove(): void;
}

function PresetRow({ draft, label, catalogue, accounts, onChange, onRemove }: PresetRowProps) {
  const category = catalogue.find((candidate) => candidate.category === draft.category);
  const account = accounts.find((candidate) => candidate.id === draft.accountId);
  return (
    <Flex role="group" aria-label={label} wrap gap={8} align="center">
      <Select
        aria-label="Category"
        placeholder="Category"
        style={{ width: 110 }}
        value={draft.category}
        options={catalogue.map((candidate) => ({ value: candidate.category, label: candidate.category }))}
        onChange={(value: string) => onChange({ ...draft, category: value, preset: undefined })}
      />
      <Select
        aria-label="Preset"
        placeholder="Preset"
        style={{ width: 210 }}
        disabled={!category}
        value={draft.preset}
        options={(category?.presets ?? []).map((preset) => ({
          value: preset.name,
          label: preset.name,
        }))}
        onChange={(value: string) => onChange({ ...draft, preset: value })}
      />
      <Select
        aria-label="Destination account"
        placeholder="Destination account"
        style={{ width: 180 }}
        showSearch={{ optionFilterProp: 'label' }}
        value={account?.id}
        options={accounts.map((candidate) => ({ value: candidate.id, label: candidate.name }))}
        onChange={(value: string) => onChange({ ...draft, accountId: value, bucket: undefined })}
      />
      <Select
        aria-label="Destination bucket"
        placeholder="Destination bucket"
        style={{ width: 180 }}
        showSearch={{ optionFilterProp: 'label' }}
        disabled={!account}
        value={account ? draft.bucket : undefined}
        options={(account?.storages ?? []).map((storage) => ({
          value: storage.bucket_name,
          label: storage.bucket_name,
        }))}
        onChange={(value: string) => onChange({ ...draft, bucket: value })}
      />
      <Input
        aria-label="Destination folder"
        placeholder="Folder (optional)"
        style={{ width: 160 }}
        value={draft.folder}
        onChange={(event) => onChange({ ...draft, folder: event.target.value })}
      />
      <Button type="text" icon={<DeleteOutlined />} aria-label={`Remove ${label}`} onClick={onRemove} />
    </Flex>
  );
}

const GiB = 1024 ** 3;

let nextDraftId = 1;
const emptyDraft = (from?: PresetDraft): PresetDraft => ({
  id: nextDraftId++,
  accountId: from?.accountId,
  bucket: from?.bucket,
  folder: from?.folder ?? '',
});

export interface EncodeDialogProps {
  files: BrowserFile[];
  onClose(): void;
}

/**
 * The encode dialog (spec 001 §2 Dialogs, §3 "Encode item", §5): for each chosen file, presets each with a
 * destination in any connected account; the price of 0.5 per GB per preset to 3 decimals; spec 001 §5's encoding
 * quota check before the request, and the server's quota refusal in the same modal. Mount it to open it.
 */
export function EncodeDialog({ files, onClose }: EncodeDialogProps) {
  const { message } = App.useApp();
  const profile = useProfile().data;
  const accounts = useCloudAccounts();
  const presets = useEncodingPresets();
  const encode = useEncode();
  const quota = useQuotaGate();
  const [drafts, setDrafts] = useState<EncodeDraft[]>(() =>
    files.map((file) => ({ file, presets: [emptyDraft()] })),
  );
  const [queued, setQueued] = useState(false);

  const catalogue = presets.data?.transcode_presets ?? [];
  const bytes = encodeBytes(drafts);

  const updateDraft = (index: number, change: (draft: EncodeDraft) => EncodeDraft | null) =>
    setDrafts((now) =>
      now.flatMap((draft, at) => {
        if (at !== index) return [draft];
        const next = change(draft);
        return next ? [next] : [];
      }),
    );

  const addPreset = (index: number) => {
    const last = drafts[index]?.presets.at(-1);
    // Spec 001 §5: "Add preset" needs a cloud account and a bucket; the new preset starts from them.
    if (last && (!last.accountId || !last.bucket)) {
      void message.warning(mediaMessages.destinationRequired);
      return;
    }
    updateDraft(index, (draft) => ({ ...draft, presets: [...draft.presets, emptyDraft(last)] }));
  };

  const submit = async () => {
    const checked = checkEncode(drafts);
    if ('problem' in checked) {
      void message.warning(checked.problem);
      return;
    }
    if (profile && !profile.has_billing_info && !quota.check(profile, 'encoding', bytes)) return;
    try {
      await encode.mutateAsync(checked.body);
      void message.success(mediaMessages.queued);
      setQueued(true);
    } catch (error) {
      if (!quota.showRefusal(error)) void message.error(describeError(error));
    }
  };

  const footer = queued
    ? [
        <Button key="close" onClick={onClose}>
          Close
        </Button>,
      ]
    : [
        <Button key="cancel" onClick={onClose}>
          Cancel
        </Button>,
        <Button key="encode" type="primary" loading={encode.isPending} onClick={() => void submit()}>
          Encode
        </Button>,
      ];

  return (
    <Modal open title="Encode" width={1000} onCancel={onClose} footer={footer} destroyOnHidden>
      {queued ? (
        <Result
          status="success"
          title={mediaMessages.queued}
          extra={
            <Link to="/encoding" onClick={onClose}>
              Go to Encoding Jobs
            </Link>
          }
        />
      ) : (
        <Flex vertical gap={12}>
          {presets.isError ? <Alert type="error" showIcon title={describeError(presets.error)} /> : null}
          {accounts.isError ? <Alert type="error" showIcon title={describeError(accounts.error)} /> : null}
          {drafts.length === 0 ? <Typography.Text type="secondary">No file chosen.</Typography.Text> : null}
          {drafts.map((draft, index) => (
            <Card
              key={`${draft.file.accountId}/${draft.file.bucket}/${draft.file.path}`}
              size="small"
              title={
                <span title={draft.file.path}>
                  {draft.file.name}{' '}
                  <Typography.Text type="secondary">({formatBytes(draft.file.size)})</Typography.Text>
                </span>
              }
              extra={
                <Button
                  type="text"
                  size="small"
                  icon={<CloseOutlined />}
                  aria-label={`Leave out ${draft.file.name}`}
                  onClick={() => updateDraft(index, () => null)}
                />
              }
            >
              <Flex vertical gap={8}>
                {draft.presets.map((preset, at) => (
                  <PresetRow
                    key={preset.id}
                    draft={preset}
                    label={`Preset ${at + 1} of ${draft.file.name}`}
                    catalogue={catalogue}
                    accounts={accounts.data ?? []}
                    onChange={(next) =>
                      updateDraft(index, (now) => ({
                        ...now,
                        presets: now.presets.map((held) => (held.id === next.id ? next : held)),
                      }))
                    }
                    onRemove={() =>
                      updateDraft(index, (now) => ({
                        ...now,
                        presets: now.presets.filter((held) => held.id !== preset.id),
                      }))
                    }
                  />
                ))}
                <Button
                  icon={<PlusOutlined />}
                  style={{ width: 'fit-content' }}
                  aria-label={`Add preset for ${draft.file.name}`}
                  onClick={() => addPreset(index)}
                >
                  Add preset
                </Button>
              </Flex>
            </Card>
          ))}
          <Typography.Text>
            Price: <span aria-label="Encoding price">${encodingPrice(bytes, 1).toFixed(3)}</span>{' '}
            <Typography.Text type="secondary">
              ({(bytes / GiB).toFixed(3)} GB to encode, each file once per preset, × ${ENCODING_PRICE_PER_GB}{' '}
              per GB)
            </Typography.Text>
          </Typography.Text>
        </Flex>
      )}
      {quota.dialog}
    </Modal>
  );
}
