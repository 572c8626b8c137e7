import { useState } from 'react';
import { Alert, Button, Flex, Form, Modal, Select, Typography } from 'antd';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import type { CloudAccountView } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { queryKeys } from '../../api/query-keys.ts';
import { saveBillingBucket, useLiveBuckets } from './providers-api.ts';

export const BILLING_STEP_TITLE = 'Set Up Billing Bucket';

/** Step 3 (aws only, after the account was created): where AWS delivers the Cost and Usage Reports. */
export function BillingBucketStep({
  account,
  onSkip,
  onError,
}: {
  account: CloudAccountView;
  onSkip: () => void;
  onError: (message: string) => void;
}) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const buckets = useLiveBuckets(account.id);
  const [bucket, setBucket] = useState<string | undefined>(account.billing_bucket ?? undefined);
  const [connecting, setConnecting] = useState(false);
  const save = useMutation({
    mutationFn: (name: string) => saveBillingBucket(account.id, name),
    onSuccess: async () => {
      setConnecting(true);
      await queryClient.invalidateQueries({ queryKey: queryKeys.accounts });
    },
    onError: (error) => onError(describeError(error)),
  });

  return (
    <div style={{ maxWidth: 720 }}>
      <Typography.Title level={4}>{BILLING_STEP_TITLE}</Typography.Title>
      <Typography.Paragraph>
        Cumulo reads the costs of <strong>{account.name}</strong> from the AWS Cost and Usage Reports that AWS
        delivers to one of your S3 buckets. To turn the delivery on in the AWS console:
      </Typography.Paragraph>
      <ol>
        <li>Sign in to the AWS Management Console and open Billing and Cost Management.</li>
        <li>Under Data Exports (Cost and Usage Reports), choose Create.</li>
        <li>
          Pick the legacy Cost and Usage Report (CUR) export, name it, tick Include resource IDs, and choose
          daily or hourly granularity.
        </li>
        <li>
          As the delivery destination, choose an S3 bucket of this account and accept the bucket policy the
          console offers, so AWS may write the reports into it.
        </li>
        <li>
          Choose the same bucket below and Save and Connect. AWS delivers the first report within 24 hours.
        </li>
      </ol>
      {buckets.isError && (
        <Alert
          type="error"
          showIcon
          style={{ marginBottom: 16 }}
          title="The buckets of this account could not be listed"
          description={describeError(buckets.error)}
        />
      )}
      <Form layout="vertical" component="div">
        <Form.Item label="Billing bucket" htmlFor="billing-bucket">
          <Select
            id="billing-bucket"
            showSearch
            placeholder="Choose the bucket that receives the reports"
            loading={buckets.isPending}
            value={bucket}
            onChange={(value: string) => setBucket(value)}
            options={(buckets.data ?? []).map((b) => ({ value: b.name, label: b.name }))}
            notFoundContent={buckets.isPending ? 'Loading buckets…' : 'No buckets found in this account'}
          />
        </Form.Item>
      </Form>
      <Flex gap={12}>
        <Button
          type="primary"
          disabled={!bucket}
          loading={save.isPending}
          onClick={() => {
            if (bucket) save.mutate(bucket);
          }}
        >
          Save and Connect
        </Button>
        <Button onClick={onSkip}>Skip this Step</Button>
      </Flex>
      <Modal
        open={connecting}
        title="Connecting to Billing Bucket"
        closable={false}
        mask={{ closable: false }}
        keyboard={false}
        footer={
          <Button type="primary" onClick={() => navigate('/cloudproviders')}>
            Go To Cloud Page
          </Button>
        }
      >
        <p>Your AWS billing information is being populated</p>
      </Modal>
    </div>
  );
}
