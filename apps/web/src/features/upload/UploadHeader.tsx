import { Card, Col, Row, Select, Statistic, Switch, Typography } from 'antd';
import { ACCESS_CONTROL_OPTIONS, formatBytes, type AccessControl } from '@cumulo/contract';

interface UploadHeaderProps {
  fileCount: number;
  totalBytes: number;
  acl: AccessControl;
  onAclChange(acl: AccessControl): void;
  /** Shown for aws destinations only (spec 001 §2); undefined hides the toggle. */
  accelerator?: {
    on: boolean;
    onChange(on: boolean): void;
  };
}

/** Spec 001 §2 header indicators: total files, total size, access control, accelerator. */
export function UploadHeader({ fileCount, totalBytes, acl, onAclChange, accelerator }: UploadHeaderProps) {
  const span = accelerator ? 6 : 8;
  return (
    <Row gutter={[16, 16]}>
      <Col xs={24} sm={12} md={span}>
        <Card size="small">
          <Statistic title="Total files" value={fileCount} />
        </Card>
      </Col>
      <Col xs={24} sm={12} md={span}>
        <Card size="small">
          <Statistic title="Total size" value={formatBytes(totalBytes)} />
        </Card>
      </Col>
      <Col xs={24} sm={12} md={span}>
        <Card size="small">
          <Typography.Text type="secondary">Access control</Typography.Text>
          <Select
            aria-label="Access control"
            value={acl}
            onChange={onAclChange}
            options={ACCESS_CONTROL_OPTIONS.map((value) => ({ value, label: value }))}
            style={{ width: '100%', marginTop: 8 }}
          />
        </Card>
      </Col>
      {accelerator && (
        <Col xs={24} sm={12} md={span}>
          <Card size="small">
            <Typography.Text type="secondary">Accelerator</Typography.Text>
            <div style={{ marginTop: 8 }}>
              <Switch aria-label="Accelerator" checked={accelerator.on} onChange={accelerator.onChange} />
            </div>
          </Card>
        </Col>
      )}
    </Row>
  );
}
