import { Result, Typography } from 'antd';
import { ClockCircleOutlined } from '@ant-design/icons';
import { Link } from 'react-router';
import { useDocumentTitle } from './useDocumentTitle.ts';

/** Stands in for a screen of the spec that a later release brings; never a blank page. */
export function ComingSoon({ title }: { title: string }) {
  useDocumentTitle(title);
  return (
    <Result
      icon={<ClockCircleOutlined />}
      title={
        <Typography.Title level={2} style={{ margin: 0 }}>
          {title}
        </Typography.Title>
      }
      subTitle="This screen arrives in a later release of Cumulo."
      extra={<Link to="/">Back to the dashboard</Link>}
    />
  );
}
