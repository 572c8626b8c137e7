import { useMemo } from 'react';
import { Alert, Empty, Spin, Tree, Typography, type TreeDataNode } from 'antd';
import { WarningOutlined } from '@ant-design/icons';
import { BUDGET_TOTAL_LABEL, financeMessages, type TreeNode } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { useBudgetTree } from './finance-api.ts';
import { useFinanceFormat } from './useFinanceFormat.ts';

interface Selection {
  cloud: string;
  label: string;
}

/** A node's key: the cloud's id alone for a cloud (its Total), the cloud and label for a product. */
const keyOf = ({ cloud, label }: Selection) => (label === BUDGET_TOTAL_LABEL ? cloud : `${cloud}\n${label}`);

/**
 * Every cloud of the organisation and its products for the year (GET /finance/budget/tree): budget, actual and
 * the mismatch warning of each. Choosing a node shows that cloud and label in the chart and the table.
 */
export function BudgetTree({
  year,
  selected,
  onSelect,
}: {
  year: number;
  selected: Selection | undefined;
  onSelect: (selection: Selection) => void;
}) {
  const tree = useBudgetTree(year);
  const { money } = useFinanceFormat();
  const { treeData, selections } = useMemo(() => {
    const found = new Map<string, Selection>();
    const toNode = (node: TreeNode, parentCloud: string | null): TreeDataNode | null => {
      const cloud = node.cloud ?? parentCloud;
      if (cloud === null) return null;
      // A cloud's node stands for its own budget (Total); its children are its products.
      const selection = { cloud, label: node.label };
      const key = keyOf(selection);
      found.set(key, selection);
      return {
        key,
        title: (
          <span>
            <Typography.Text strong={parentCloud === null}>{node.title}</Typography.Text>{' '}
            <Typography.Text type="secondary" style={{ fontSize: 12 }}>
              {money(node.actual)} of {money(node.value)}
            </Typography.Text>
            {node.budget_warning && (
              <Typography.Text type="warning" style={{ fontSize: 12, display: 'block' }}>
                <WarningOutlined /> {financeMessages.subBudgetMismatch}
              </Typography.Text>
            )}
          </span>
        ),
        children: node.children
          .map((child) => toNode(child, cloud))
          .filter((child): child is TreeDataNode => child !== null),
      };
    };
    // A node without a cloud only groups clouds (the organisation): its clouds are shown at the top.
    const clouds = (tree.data ?? []).flatMap((node) => (node.cloud === null ? node.children : [node]));
    const nodes = clouds
      .map((node) => toNode(node, null))
      .filter((node): node is TreeDataNode => node !== null);
    return { treeData: nodes, selections: found };
  }, [tree.data, money]);

  if (tree.isError) return <Alert type="error" showIcon title={describeError(tree.error)} />;
  if (tree.isPending) return <Spin aria-label="Loading" />;
  if (treeData.length === 0) return <Empty description="No budgets this year" />;
  return (
    <Tree
      aria-label="Budgets by cloud"
      treeData={treeData}
      defaultExpandAll
      blockNode
      selectedKeys={selected ? [keyOf(selected)] : []}
      onSelect={(keys) => {
        const chosen = keys[0] === undefined ? undefined : selections.get(String(keys[0]));
        if (chosen) onSelect(chosen);
      }}
    />
  );
}
