import { Col, Row } from 'antd';
import type { AllocationProduct, ProductTotalCost } from '@cumulo/contract';
import { useAllocation, type AnalyticsSelection } from '../analytics-api.ts';
import { CostDonut } from './CostDonut.tsx';
import { TabState } from './TabState.tsx';

/** The second donut of a product tab: by operation, except where the region says more (data transfer). */
const SECOND_DONUT: Partial<Record<AllocationProduct, 'regions'>> = { 'data-transfer': 'regions' };

/** A per-product tab of /analytics-old: the month's usage types, then its operations (or regions). */
export function ProductDonuts({
  product,
  title,
  selection,
}: {
  product: AllocationProduct;
  title: string;
  selection: AnalyticsSelection;
}) {
  const allocation = useAllocation(product, selection);
  return (
    <TabState query={allocation}>
      {(month) => (
        <Row gutter={[16, 16]}>
          <Col xs={24} xl={12}>
            <CostDonut
              title={`${title} by usage type`}
              total={month.total_cost}
              items={month.usage_types.map((usage) => ({ name: usage.usage_type, cost: usage.cost }))}
            />
          </Col>
          <Col xs={24} xl={12}>
            {SECOND_DONUT[product] === 'regions' ? (
              <CostDonut
                title={`${title} by region`}
                total={month.total_cost}
                items={month.regions.map((region) => ({ name: region.region, cost: region.cost }))}
              />
            ) : (
              <CostDonut
                title={`${title} by operation`}
                total={month.total_cost}
                items={month.operations.map((operation) => ({
                  name: operation.operation,
                  cost: operation.cost,
                }))}
              />
            )}
          </Col>
        </Row>
      )}
    </TabState>
  );
}

/** The Overview tab: every product of the month, from the product totals the page already holds. */
export function OverviewDonut({
  totals,
}: {
  totals: { data: ProductTotalCost[] | undefined; error: unknown; isPending: boolean };
}) {
  return (
    <TabState query={totals}>
      {(products) => (
        <CostDonut
          title="Cost by product"
          total={products.reduce((sum, product) => sum + product.total_cost, 0)}
          items={products.map((product) => ({ name: product.label, cost: product.total_cost }))}
        />
      )}
    </TabState>
  );
}
