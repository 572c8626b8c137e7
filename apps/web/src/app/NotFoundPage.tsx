import { Result } from 'antd';
import { Link } from 'react-router';
import { useDocumentTitle } from '../ui/useDocumentTitle.ts';

export function NotFoundPage() {
  useDocumentTitle('Page not found');
  return (
    <Result
      status="404"
      title="Page not found"
      subTitle="Sorry, the page you visited does not exist."
      extra={<Link to="/">Back to the dashboard</Link>}
    />
  );
}
