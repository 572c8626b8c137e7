import type { ReactNode } from 'react';
import { Flex, Typography } from 'antd';
import { Link } from 'react-router';

/** The title row of the set-up screens: a heading with one way out (Close, Cancel) on the right. */
export function ScreenHeader({
  title,
  exitLabel,
  exitTo = '/',
  extra,
}: {
  title: string;
  exitLabel: string;
  exitTo?: string;
  extra?: ReactNode;
}) {
  return (
    <Flex justify="space-between" align="baseline" gap={16} wrap style={{ marginBottom: 24 }}>
      <div>
        <Typography.Title level={2} style={{ margin: 0 }}>
          {title}
        </Typography.Title>
        {extra}
      </div>
      <Link to={exitTo}>{exitLabel}</Link>
    </Flex>
  );
}
