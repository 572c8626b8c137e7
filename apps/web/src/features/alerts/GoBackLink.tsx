import type { MouseEvent } from 'react';
import { ArrowLeftOutlined } from '@ant-design/icons';
import { Link, useLocation, useNavigate } from 'react-router';

/** 'Go back' to the previous page of this visit; a page opened directly has none, so it goes to /. */
export function GoBackLink() {
  const navigate = useNavigate();
  const location = useLocation();
  // The router gives the first entry of a visit the key 'default'.
  const hasHistory = location.key !== 'default';
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    if (!hasHistory) return;
    event.preventDefault();
    void navigate(-1);
  };
  return (
    <Link to="/" onClick={onClick}>
      <ArrowLeftOutlined /> Go back
    </Link>
  );
}
