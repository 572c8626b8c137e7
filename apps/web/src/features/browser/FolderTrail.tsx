import { Breadcrumb, Button, Typography } from 'antd';
import { ArrowLeftOutlined } from '@ant-design/icons';
import { displayName } from '@cumulo/contract';

/** The folder above `path` ('a/b/' → 'a/'; a top-level folder → the bucket root ''). */
export function parentOf(path: string): string {
  const trimmed = path.slice(0, -1);
  const slash = trimmed.lastIndexOf('/');
  return slash < 0 ? '' : trimmed.slice(0, slash + 1);
}

/**
 * Back navigation and the breadcrumbs of a folder in a bucket (spec 001 §2 "Cloud bucket browser"): the bucket,
 * then each folder down to `path`; every level but the current one opens its folder. `backLabel` names the Back
 * button where several browsers share a screen.
 */
export function FolderTrail({
  bucket,
  path,
  onOpenFolder,
  backLabel = 'Back',
}: {
  bucket: string;
  path: string;
  onOpenFolder: (path: string) => void;
  backLabel?: string;
}) {
  const segments = path.split('/').filter(Boolean);
  return (
    <>
      <Button
        aria-label={backLabel}
        icon={<ArrowLeftOutlined />}
        disabled={path === ''}
        onClick={() => onOpenFolder(parentOf(path))}
      />
      <Breadcrumb
        items={[
          { title: <Typography.Link onClick={() => onOpenFolder('')}>{bucket}</Typography.Link> },
          ...segments.map((segment, index) => {
            const target = `${segments.slice(0, index + 1).join('/')}/`;
            return {
              title:
                target === path ? (
                  <span title={segment}>{displayName(segment)}</span>
                ) : (
                  <Typography.Link title={segment} onClick={() => onOpenFolder(target)}>
                    {displayName(segment)}
                  </Typography.Link>
                ),
            };
          }),
        ]}
      />
    </>
  );
}
