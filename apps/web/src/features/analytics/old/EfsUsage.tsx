import { Table } from 'antd';
import type { EfsFileSystem } from '@cumulo/contract';
import { ByteSize } from '../../../ui/ByteSize.tsx';
import { DateText } from '../../../ui/DateText.tsx';
import { useEfsFileSystems, type AnalyticsSelection } from '../analytics-api.ts';
import { TabState } from './TabState.tsx';

/** What a file system shows when the EFS API could not be asked (the report knows neither). */
const UNKNOWN = '—';

/** EFS Usage (spec 002 §2): name, file system ID, metered size, mount targets, creation date. */
export function EfsUsage({ selection }: { selection: AnalyticsSelection }) {
  const fileSystems = useEfsFileSystems(selection);
  return (
    <TabState query={fileSystems}>
      {(rows) => (
        <Table<EfsFileSystem>
          aria-label="EFS file systems"
          rowKey="file_system_id"
          dataSource={rows}
          pagination={false}
          locale={{ emptyText: 'No EFS file system this month.' }}
          columns={[
            { title: 'Name', dataIndex: 'name' },
            { title: 'File System ID', dataIndex: 'file_system_id' },
            {
              title: 'Metered Size',
              key: 'size',
              render: (_, row) => <ByteSize bytes={row.size_in_bytes.value} />,
            },
            {
              title: 'Mount Targets',
              key: 'mounts',
              render: (_, row) => row.number_of_mount_targets ?? UNKNOWN,
            },
            {
              title: 'Creation Date',
              key: 'created',
              render: (_, row) => (row.creation_time ? <DateText value={row.creation_time} /> : UNKNOWN),
            },
          ]}
        />
      )}
    </TabState>
  );
}
