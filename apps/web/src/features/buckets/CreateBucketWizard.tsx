import { useState } from 'react';
import { Alert, App, Button, Card, Checkbox, Flex, Form, Input, Select, Steps, Typography } from 'antd';
import { LoadingOutlined } from '@ant-design/icons';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import {
  AWS_REGIONS,
  WASABI_DEFAULT_REGION,
  WASABI_REGIONS,
  bucketNameErrors,
  type CloudAccountView,
  type ProviderName,
} from '@cumulo/contract';
import { ApiError, describeError, fieldMessages } from '../../api/client.ts';
import { queryKeys } from '../../api/query-keys.ts';
import { ProviderLogo } from '../../ui/ProviderLogo.tsx';
import { ScreenHeader } from '../providers/ScreenHeader.tsx';
import { BucketUsersStep } from './BucketUsersStep.tsx';
import { createBucketRequest, upsertBucketUser, type BucketUser } from './bucket-request.ts';
import { createBucket, useBucketNameCheck } from './buckets-api.ts';

export const CREATE_BUCKET_TITLE = 'Create New Bucket';

type Step = 'name' | 'users' | 'permissions';

/** The first error of a failed create, as the banner shows it (spec 000 §8). */
function firstError(error: unknown): string {
  return error instanceof ApiError ? (fieldMessages(error.body)[0] ?? error.message) : describeError(error);
}

/** Create New Bucket for an aws or wasabi account (spec 000 §2): name, then users and permissions (aws only). */
export function CreateBucketWizard({
  account,
  provider,
}: {
  account: CloudAccountView;
  provider: ProviderName;
}) {
  const { message } = App.useApp();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  // Wasabi has no Manage Users step: its bucket is created from the name step.
  const steps: Step[] = provider === 'wasabi' ? ['name'] : ['name', 'users', 'permissions'];
  const regions: readonly string[] = provider === 'wasabi' ? WASABI_REGIONS : AWS_REGIONS;

  const [step, setStep] = useState<Step>('name');
  const [name, setName] = useState('');
  const [nameTouched, setNameTouched] = useState(false);
  const [region, setRegion] = useState<string>(provider === 'wasabi' ? WASABI_DEFAULT_REGION : 'us-east-1');
  const [configBucket, setConfigBucket] = useState<string | null>(null);
  const [users, setUsers] = useState<BucketUser[]>([]);
  const [publicRead, setPublicRead] = useState(false);
  const [systemRead, setSystemRead] = useState(false);
  const [banner, setBanner] = useState<string | null>(null);
  const [warning, setWarning] = useState<string | null>(null);

  const ruleErrors = bucketNameErrors(name);
  const nameCheck = useBucketNameCheck(account.id, provider, name);
  const nameMessages = nameCheck.takenMessage ? [nameCheck.takenMessage] : ruleErrors;
  const showNameMessages = nameTouched && nameMessages.length > 0;
  const nameReady = name !== '' && ruleErrors.length === 0 && !nameCheck.checking && !nameCheck.takenMessage;

  const create = useMutation({
    mutationFn: () =>
      createBucket(
        account.id,
        createBucketRequest({ name, region, provider, configBucket, users, publicRead, systemRead }),
      ),
    onMutate: () => setBanner(null),
    onSuccess: async (answer) => {
      void message.success(answer.message);
      await queryClient.invalidateQueries({ queryKey: queryKeys.accounts });
      // A warning (settings or grants not applied) stays on screen until read; otherwise the flow ends here.
      if (answer.warning) setWarning(answer.warning);
      else navigate('/');
    },
    onError: (error) => setBanner(firstError(error)),
  });

  const index = steps.indexOf(step);
  const isLast = index === steps.length - 1;
  const createDisabled = create.isPending || !nameReady || !region;

  if (warning) {
    return (
      <Card>
        <ScreenHeader title={CREATE_BUCKET_TITLE} exitLabel="Cancel" />
        <Alert
          type="warning"
          showIcon
          title={`Bucket ${name} was created with a warning`}
          description={warning}
        />
        <Button type="primary" style={{ marginTop: 16 }} onClick={() => navigate('/')}>
          Continue
        </Button>
      </Card>
    );
  }

  return (
    <Card>
      <ScreenHeader
        title={CREATE_BUCKET_TITLE}
        exitLabel="Cancel"
        extra={
          <Typography.Text type="secondary">
            <ProviderLogo provider={provider} height={20} style={{ marginRight: 8 }} />
            in {account.name}
          </Typography.Text>
        }
      />
      {banner && (
        <Alert
          type="error"
          showIcon
          closable={{ onClose: () => setBanner(null) }}
          title={banner}
          style={{ marginBottom: 24 }}
        />
      )}
      {steps.length > 1 && (
        <Steps
          current={index}
          style={{ marginBottom: 32 }}
          items={[{ title: 'Name' }, { title: 'Manage Users' }, { title: 'Permissions' }]}
        />
      )}

      {step === 'name' && (
        <Form layout="vertical" component="div" style={{ maxWidth: 560 }}>
          <Form.Item
            label="Bucket name"
            htmlFor="bucket-name"
            required
            validateStatus={showNameMessages ? 'error' : nameCheck.checking ? 'validating' : undefined}
            help={
              showNameMessages ? (
                <div role="list" aria-label="Bucket name problems">
                  {nameMessages.map((text) => (
                    <div role="listitem" key={text}>
                      {text}
                    </div>
                  ))}
                </div>
              ) : undefined
            }
          >
            <Input
              id="bucket-name"
              autoComplete="off"
              value={name}
              onChange={(event) => {
                setName(event.target.value);
                setNameTouched(true);
              }}
              onBlur={() => setNameTouched(true)}
              // Always a suffix: adding one later would remount the input and drop the focus mid-typing.
              suffix={
                nameCheck.checking ? <LoadingOutlined aria-label="Checking the name" /> : <span aria-hidden />
              }
            />
          </Form.Item>
          <Form.Item label="Region" htmlFor="bucket-region" required>
            <Select
              id="bucket-region"
              showSearch
              value={region || undefined}
              onChange={(value: string) => setRegion(value)}
              options={regions.map((r) => ({ value: r, label: r }))}
            />
          </Form.Item>
          <Form.Item
            label="Copy settings from an existing bucket"
            htmlFor="bucket-config"
            extra="Optional: CORS, versioning, tags and transfer acceleration are copied when the bucket has them."
          >
            <Select
              id="bucket-config"
              allowClear
              showSearch
              placeholder="Don't copy settings"
              value={configBucket ?? undefined}
              onChange={(value?: string) => setConfigBucket(value ?? null)}
              options={account.storages.map((s) => ({ value: s.bucket_name, label: s.bucket_name }))}
              notFoundContent="This account has no buckets yet"
            />
          </Form.Item>
        </Form>
      )}

      {step === 'users' && (
        <BucketUsersStep
          users={users}
          onSave={(entry) => setUsers((current) => upsertBucketUser(current, entry))}
          onRemove={(user) => setUsers((current) => current.filter((u) => u.user !== user))}
        />
      )}

      {step === 'permissions' && (
        <Flex vertical gap={16} style={{ maxWidth: 560 }}>
          <Typography.Paragraph type="secondary" style={{ margin: 0 }}>
            Grant READ on the bucket to S3&apos;s predefined groups.
          </Typography.Paragraph>
          <div>
            <Checkbox checked={publicRead} onChange={(event) => setPublicRead(event.target.checked)}>
              Public: READ
            </Checkbox>
            <Typography.Paragraph type="secondary" style={{ margin: '4px 0 0 24px' }}>
              Anyone on the internet can list the objects of the bucket.
            </Typography.Paragraph>
          </div>
          <div>
            <Checkbox checked={systemRead} onChange={(event) => setSystemRead(event.target.checked)}>
              System: READ
            </Checkbox>
            <Typography.Paragraph type="secondary" style={{ margin: '4px 0 0 24px' }}>
              The S3 log delivery group can read the bucket.
            </Typography.Paragraph>
          </div>
        </Flex>
      )}

      <Flex gap={12} style={{ marginTop: 24 }}>
        {index > 0 && <Button onClick={() => setStep(steps[index - 1] ?? 'name')}>Back</Button>}
        {isLast ? (
          <Button
            type="primary"
            disabled={createDisabled}
            loading={create.isPending}
            onClick={() => create.mutate()}
          >
            Create Bucket
          </Button>
        ) : (
          <Button
            type="primary"
            disabled={!nameReady || !region}
            onClick={() => setStep(steps[index + 1] ?? 'name')}
          >
            Next
          </Button>
        )}
      </Flex>
    </Card>
  );
}
