import type { ReactNode } from 'react';
import { Alert, Button, Collapse, Form, Input, Radio, Select, Typography, Upload } from 'antd';
import { UploadOutlined } from '@ant-design/icons';
import { FILEBASE_ENDPOINT, NAME_MAX_LENGTH, WASABI_REGIONS, type ProviderName } from '@cumulo/contract';
import {
  PROVIDER_FIELDS,
  SIGNATURE_V2_REFUSED,
  emptyFieldMessage,
  type AccountField,
  type AccountFormValues,
  type SignatureVersion,
} from './account-form.ts';

function fieldLabel(provider: ProviderName, field: AccountField): string {
  switch (field) {
    case 'name':
      return 'Name';
    case 'accessKey':
      return provider === 'azure' ? 'Storage account name' : 'Access Key';
    case 'secretKey':
      return provider === 'azure' ? 'Account key' : 'Secret Key';
    case 'region':
      return 'Region';
    case 'serviceUrl':
      return 'Service URL';
    case 'credentialsData':
      return 'Service Account Key (JSON)';
  }
}

const PLACEHOLDERS: Partial<Record<AccountField, string>> = {
  name: 'e.g. Production media',
  serviceUrl: 'https://s3.example.com',
  credentialsData: '{ "type": "service_account", … }',
};

const fieldId = (field: AccountField) => `account-${field}`;

interface AccessFormProps {
  provider: ProviderName;
  values: AccountFormValues;
  /** Fields the user has been in: only these show their message (spec 000 §4). */
  touched: ReadonlySet<AccountField>;
  onChange: (patch: Partial<AccountFormValues>) => void;
  onTouch: (field: AccountField) => void;
}

/** Step 2: the credentials of one provider, with each empty field's message once it was touched. */
export function AccessForm({ provider, values, touched, onChange, onTouch }: AccessFormProps) {
  const input = (field: AccountField): ReactNode => {
    const common = {
      id: fieldId(field),
      onBlur: () => onTouch(field),
    };
    switch (field) {
      case 'secretKey':
        return (
          <Input.Password
            {...common}
            autoComplete="off"
            value={values.secretKey}
            onChange={(event) => onChange({ secretKey: event.target.value })}
          />
        );
      case 'region':
        return provider === 'wasabi' ? (
          <Select
            {...common}
            value={values.region || undefined}
            options={WASABI_REGIONS.map((region) => ({ value: region, label: region }))}
            onChange={(region: string) => {
              onChange({ region });
              onTouch('region');
            }}
          />
        ) : (
          <Input
            {...common}
            placeholder="us-west-004"
            value={values.region}
            onChange={(event) => onChange({ region: event.target.value })}
          />
        );
      case 'credentialsData':
        return (
          <Input.TextArea
            {...common}
            rows={8}
            spellCheck={false}
            placeholder={PLACEHOLDERS.credentialsData}
            value={values.credentialsData}
            onChange={(event) => onChange({ credentialsData: event.target.value })}
          />
        );
      default:
        return (
          <Input
            {...common}
            autoComplete="off"
            // The name is stored with at most NAME_MAX_LENGTH characters: the field stops there, not the server.
            maxLength={field === 'name' ? NAME_MAX_LENGTH : undefined}
            showCount={field === 'name'}
            placeholder={PLACEHOLDERS[field]}
            value={values[field]}
            onChange={(event) => onChange({ [field]: event.target.value })}
          />
        );
    }
  };

  return (
    <Form layout="vertical" component="div" style={{ maxWidth: 560 }}>
      {PROVIDER_FIELDS[provider].map((field) => {
        const showMessage = touched.has(field) && values[field].trim() === '';
        return (
          <Form.Item
            key={field}
            label={fieldLabel(provider, field)}
            htmlFor={fieldId(field)}
            required
            validateStatus={showMessage ? 'error' : undefined}
            help={showMessage ? emptyFieldMessage(provider, field) : undefined}
            extra={
              field === 'region' && provider === 'backblaze'
                ? 'The region of your B2 endpoint, such as us-west-004.'
                : undefined
            }
          >
            {input(field)}
          </Form.Item>
        );
      })}
      {provider === 'google' && (
        <Form.Item>
          <Upload
            accept=".json,application/json"
            showUploadList={false}
            beforeUpload={(file) => {
              void file.text().then((text) => {
                onChange({ credentialsData: text });
                onTouch('credentialsData');
              });
              // The file is only read here; nothing is uploaded.
              return false;
            }}
          >
            <Button icon={<UploadOutlined />}>Select JSON key file</Button>
          </Upload>
        </Form.Item>
      )}
      {provider === 'filebase' && (
        <Typography.Paragraph type="secondary">
          Filebase is reached at {FILEBASE_ENDPOINT}.
        </Typography.Paragraph>
      )}
      {provider === 'genericS3' && (
        <Collapse
          style={{ marginBottom: 24 }}
          items={[
            {
              key: 'advanced',
              label: 'Advanced',
              children: (
                <Form.Item label="Signature version" style={{ marginBottom: 0 }}>
                  <Radio.Group
                    value={values.signatureVersion}
                    onChange={(event) =>
                      onChange({ signatureVersion: event.target.value as SignatureVersion })
                    }
                    options={[
                      { value: 'v2', label: 'V2' },
                      { value: 'v4', label: 'V4' },
                    ]}
                  />
                  {values.signatureVersion === 'v2' && (
                    <Alert
                      type="warning"
                      showIcon
                      style={{ marginTop: 12 }}
                      title={SIGNATURE_V2_REFUSED}
                      description="The Cumulo server signs requests with Signature V4 only; choose V4 to save this account."
                    />
                  )}
                </Form.Item>
              ),
            },
          ]}
        />
      )}
    </Form>
  );
}
