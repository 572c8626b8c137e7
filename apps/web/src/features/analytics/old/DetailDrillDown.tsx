import { useState } from 'react';
import { Button, Col, Flex, Row, Select } from 'antd';
import type { BucketCost, DatabaseCost } from '@cumulo/contract';
import { CostDonut } from './CostDonut.tsx';
import { sumByName } from './donut-slices.ts';

/** A bucket or a database with its usage types and their operations (the two detail calls share the nesting). */
export interface CostResource {
  name: string;
  cost: number;
  usage_types: BucketCost['usage_types'];
}

export const bucketResources = (buckets: readonly BucketCost[]): CostResource[] =>
  buckets.map((bucket) => ({ name: bucket.bucket_name, cost: bucket.cost, usage_types: bucket.usage_types }));
export const databaseResources = (databases: readonly DatabaseCost[]): CostResource[] =>
  databases.map((database) => ({
    name: database.database_name,
    cost: database.cost,
    usage_types: database.usage_types,
  }));

/**
 * Bucket Cost and Database Cost (spec 002 §2): choose a resource, then one of its usage types; three donuts drill
 * down resource → usage type → operation, and Clear Filter goes back to all. Before a choice, a donut sums over
 * everything above it, so all three show the month. The 'unattributed' group (line items without a resource id)
 * is listed like any resource.
 */
export function DetailDrillDown({
  noun,
  resources,
}: {
  /** 'bucket' or 'database', as the selectors and titles name it. */
  noun: 'bucket' | 'database';
  resources: readonly CostResource[];
}) {
  const [resourceName, setResourceName] = useState<string | null>(null);
  const [usageTypeName, setUsageTypeName] = useState<string | null>(null);
  const resource = resources.find((item) => item.name === resourceName);
  const usageTypes = resource ? resource.usage_types : resources.flatMap((item) => item.usage_types);
  const usageType = resource?.usage_types.find((item) => item.usage_type === usageTypeName);
  const operations = usageType ? usageType.operations : usageTypes.flatMap((item) => item.operations);
  const total = resource ? resource.cost : resources.reduce((sum, item) => sum + item.cost, 0);
  const Noun = noun === 'bucket' ? 'Bucket' : 'Database';
  const plural = noun === 'bucket' ? 'buckets' : 'databases';
  const usageScope = resource ? resource.name : `all ${plural}`;
  const operationScope = usageType ? `${usageScope} · ${usageType.usage_type}` : usageScope;

  return (
    <Flex vertical gap={16}>
      <Flex wrap gap={8}>
        <Select<string>
          aria-label={Noun}
          placeholder={`Select ${noun}`}
          style={{ minWidth: 220 }}
          showSearch
          optionFilterProp="label"
          value={resourceName}
          onChange={(name) => {
            setResourceName(name);
            setUsageTypeName(null);
          }}
          options={resources.map((item) => ({ value: item.name, label: item.name }))}
        />
        <Select<string>
          aria-label="Usage type"
          placeholder="Select usage type"
          style={{ minWidth: 220 }}
          showSearch
          optionFilterProp="label"
          disabled={!resource}
          value={usageTypeName}
          onChange={setUsageTypeName}
          options={(resource?.usage_types ?? []).map((item) => ({
            value: item.usage_type,
            label: item.usage_type,
          }))}
        />
        <Button
          disabled={resourceName === null}
          onClick={() => {
            setResourceName(null);
            setUsageTypeName(null);
          }}
        >
          Clear Filter
        </Button>
      </Flex>
      <Row gutter={[16, 16]}>
        <Col xs={24} xl={8}>
          <CostDonut
            title={`Cost by ${noun}`}
            total={resources.reduce((sum, item) => sum + item.cost, 0)}
            items={resources.map((item) => ({ name: item.name, cost: item.cost }))}
          />
        </Col>
        <Col xs={24} xl={8}>
          <CostDonut
            title={`Usage types of ${usageScope}`}
            total={total}
            items={sumByName(usageTypes.map((item) => ({ name: item.usage_type, cost: item.cost })))}
          />
        </Col>
        <Col xs={24} xl={8}>
          <CostDonut
            title={`Operations of ${operationScope}`}
            total={usageType ? usageType.cost : total}
            items={sumByName(operations.map((item) => ({ name: item.operation, cost: item.cost })))}
          />
        </Col>
      </Row>
    </Flex>
  );
}
