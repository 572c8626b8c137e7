import { Result } from 'antd';
import { Link } from 'react-router';

const ACCOUNT_NOT_FOUND = 'Cloud account not found';

export function AccountNotFound() {
  return (
    <Result
      status="404"
      title={ACCOUNT_NOT_FOUND}
      subTitle="It may have been removed, or the link is incomplete."
      extra={<Link to="/">Back to the dashboard</Link>}
    />
  );
}
