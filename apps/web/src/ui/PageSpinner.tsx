import { Spin } from 'antd';

export function PageSpinner() {
  return (
    <div style={{ display: 'flex', justifyContent: 'center', padding: 64 }}>
      <Spin size="large" aria-label="Loading" />
    </div>
  );
}
