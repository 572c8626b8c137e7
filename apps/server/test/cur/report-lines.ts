/**
 * What one generated billing-report line holds and how a period's lines are drawn from a seed: realistic products,
 * usage types, operations, resource ids and line-item types (test/cur/generator.ts lays them out as files).
 */

/** A small, fast PRNG (mulberry32): the same seed gives the same stream on every machine. */
export class Prng {
  private state: number;
  constructor(seed: string) {
    // FNV-1a folds any seed text into the 32-bit state.
    let hash = 0x811c9dc5;
    for (let i = 0; i < seed.length; i++) {
      hash ^= seed.charCodeAt(i);
      hash = Math.imul(hash, 0x01000193);
    }
    this.state = hash >>> 0;
  }
  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }
  hex(length: number): string {
    let out = '';
    while (out.length < length) out += (this.int(0, 0xffffff) | 0x1000000).toString(16).slice(1);
    return out.slice(0, length);
  }
  uuid(): string {
    const h = this.hex(32);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }
  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      const a = out[i] as T;
      out[i] = out[j] as T;
      out[j] = a;
    }
    return out;
  }
}

/** One line of a report, as the generator wrote it (both layouts render it, each with its own column names). */
export interface GeneratedLine {
  lineItemId: string;
  usageAccountId: string;
  lineItemType: string;
  /** Epoch ms (UTC) of the usage start and end. */
  start: number;
  end: number;
  productCode: string;
  productName: string;
  usageType: string;
  operation: string;
  availabilityZone: string;
  region: string;
  resourceId: string;
  usageAmount: string;
  unblendedRate: string;
  /** The cost as the file carries it (decimal text, up to 10 decimals), and exactly, in nano-dollars. */
  costText: string;
  costNano: bigint;
  description: string;
  pricingUnit: string;
  tagProject: string;
  tagTeam: string;
}

interface UsageKind {
  usageType: string;
  operation: string;
  unit: string;
  /** Cost range in nano-dollars of one line. */
  cost: [number, number];
  description: string;
}

interface Product {
  code: string;
  name: string;
  /** Weight among usage lines. */
  weight: number;
  zonal: boolean;
  kinds: UsageKind[];
  /** The resource ids of an account (a bucket, an instance, a database, …). */
  resources(account: string, region: string, prng: Prng): string[];
}

const REGIONS = ['us-east-1', 'eu-central-1', 'us-west-2'] as const;
const REGION_PREFIX: Record<string, string> = {
  'us-east-1': 'USE1',
  'eu-central-1': 'EUC1',
  'us-west-2': 'USW2',
};

const PRODUCTS: Product[] = [
  {
    code: 'AmazonS3',
    name: 'Amazon Simple Storage Service',
    weight: 30,
    zonal: false,
    kinds: [
      {
        usageType: 'TimedStorage-ByteHrs',
        operation: 'StandardStorage',
        unit: 'GB-Mo',
        cost: [1_000, 900_000_000],
        description: '$0.023 per GB - first 50 TB / month of storage used',
      },
      {
        usageType: 'Requests-Tier1',
        operation: 'PutObject',
        unit: 'Requests',
        cost: [5_000, 50_000_000],
        description: '$0.005 per 1,000 PUT, COPY, POST, or LIST requests',
      },
      {
        usageType: 'Requests-Tier2',
        operation: 'GetObject',
        unit: 'Requests',
        cost: [400, 4_000_000],
        description: '$0.0004 per 1,000 GET and all other requests',
      },
      {
        usageType: 'DataTransfer-Out-Bytes',
        operation: 'GetObject',
        unit: 'GB',
        cost: [0, 2_000_000_000],
        description: '$0.09 per GB - first 10 TB / month data transfer out beyond the global free tier',
      },
    ],
    resources: (account, region) =>
      ['logs', 'media', 'backups', 'static-site'].map((n) => `${n}-${account.slice(-4)}-${region}`),
  },
  {
    code: 'AmazonEC2',
    name: 'Amazon Elastic Compute Cloud',
    weight: 25,
    zonal: true,
    kinds: [
      {
        usageType: 'BoxUsage:t3.medium',
        operation: 'RunInstances',
        unit: 'Hrs',
        cost: [41_600_000, 41_600_000],
        description: '$0.0416 per On Demand Linux t3.medium Instance Hour',
      },
      {
        usageType: 'BoxUsage:m5.xlarge',
        operation: 'RunInstances',
        unit: 'Hrs',
        cost: [192_000_000, 192_000_000],
        description: '$0.192 per On Demand Linux m5.xlarge Instance Hour',
      },
      {
        usageType: 'EBS:VolumeUsage.gp3',
        operation: 'CreateVolume-Gp3',
        unit: 'GB-Mo',
        cost: [100_000, 300_000_000],
        description:
          '$0.08 per GB-month of General Purpose (gp3) provisioned storage - US East (Northern Virginia)',
      },
    ],
    resources: (_account, _region, prng) => Array.from({ length: 6 }, () => `i-0${prng.hex(16)}`),
  },
  {
    code: 'AmazonRDS',
    name: 'Amazon Relational Database Service',
    weight: 10,
    zonal: true,
    kinds: [
      {
        usageType: 'InstanceUsage:db.t3.medium',
        operation: 'CreateDBInstance:0002',
        unit: 'Hrs',
        cost: [68_000_000, 68_000_000],
        description: '$0.068 per RDS db.t3.medium Single-AZ instance hour (or partial hour) running MySQL',
      },
      {
        usageType: 'RDS:GP2-Storage',
        operation: 'CreateDBInstance:0002',
        unit: 'GB-Mo',
        cost: [100_000, 200_000_000],
        description: '$0.115 per GB-month of provisioned gp2 storage running MySQL',
      },
    ],
    resources: (account, region) =>
      ['orders', 'analytics'].map((n) => `arn:aws:rds:${region}:${account}:db:${n}-db`),
  },
  {
    code: 'AmazonEFS',
    name: 'Amazon Elastic File System',
    weight: 6,
    zonal: false,
    kinds: [
      {
        usageType: 'TimedStorage-ByteHrs',
        operation: '',
        unit: 'GB-Mo',
        cost: [10_000, 400_000_000],
        description: '$0.30 per GB-Mo for Standard storage',
      },
    ],
    resources: (_account, _region, prng) => [`fs-${prng.hex(8)}`, `fs-${prng.hex(17)}`],
  },
  {
    code: 'AmazonCloudWatch',
    name: 'AmazonCloudWatch',
    weight: 8,
    zonal: false,
    kinds: [
      {
        usageType: 'CW:MetricMonitorUsage',
        operation: 'MetricStorage',
        unit: 'Metrics',
        cost: [1_000_000, 300_000_000],
        description: '$0.30 per metric-month - first 10,000 metrics',
      },
      {
        usageType: 'CW:Requests',
        operation: 'GetMetricData',
        unit: 'Requests',
        cost: [10_000, 10_000_000],
        description: '$0.01 per 1,000 metrics requested using GetMetricData API',
      },
    ],
    resources: (account, region) => [`arn:aws:cloudwatch:${region}:${account}:alarm:cpu-high`],
  },
  {
    code: 'AmazonRoute53',
    name: 'Amazon Route 53',
    weight: 5,
    zonal: false,
    kinds: [
      {
        usageType: 'DNS-Queries',
        operation: 'Query',
        unit: 'Queries',
        cost: [400, 5_000_000],
        description: '$0.40 per 1,000,000 queries for the first 1 Billion queries',
      },
      {
        usageType: 'HostedZone',
        operation: '',
        unit: 'HostedZone',
        cost: [500_000_000, 500_000_000],
        description: '$0.50 per Hosted Zone for the first 25 Hosted Zones',
      },
    ],
    resources: (_account, _region, prng) => [`arn:aws:route53:::hostedzone/Z${prng.hex(12).toUpperCase()}`],
  },
  {
    code: 'AWSDataTransfer',
    name: 'AWS Data Transfer',
    weight: 10,
    zonal: false,
    kinds: [
      {
        usageType: 'DataTransfer-Out-Bytes',
        operation: 'RunInstances',
        unit: 'GB',
        cost: [0, 3_000_000_000],
        description: '$0.090 per GB - first 10 TB / month data transfer out beyond the global free tier',
      },
      {
        usageType: 'DataTransfer-Regional-Bytes',
        operation: 'InterZone-In',
        unit: 'GB',
        cost: [0, 500_000_000],
        description:
          '$0.010 per GB - regional data transfer - in/out/between EC2 AZs or using elastic IPs or ELB',
      },
    ],
    resources: (_account, _region, prng) => Array.from({ length: 3 }, () => `i-0${prng.hex(16)}`),
  },
  {
    code: 'AWSDirectConnect',
    name: 'AWS Direct Connect',
    weight: 3,
    zonal: false,
    kinds: [
      {
        usageType: 'PortUsage:1G',
        operation: 'CreateConnection',
        unit: 'Hrs',
        cost: [300_000_000, 300_000_000],
        description: '$0.30 per 1G port-hour (or partial hour)',
      },
      {
        usageType: 'DataXfer-Out:dc.1',
        operation: 'DataXfer-Out',
        unit: 'GB',
        cost: [0, 800_000_000],
        description: '$0.0200 per GB data transfer out, from US East (N. Virginia) over Direct Connect',
      },
    ],
    resources: (_account, _region, prng) => [`dxcon-${prng.hex(8)}`],
  },
];

const PROJECTS = ['', 'atlas', 'billing, core', 'web'];
const TEAMS = ['', 'data', 'platform', 'Ops "night"'];
const HOUR = 3_600_000;
const NANO = 1_000_000_000n;

/** Decimal text of nano-dollars as CUR files write costs: 9 decimals, sometimes 10 (a trailing 0) or trimmed. */
function costText(nano: bigint, style: number): string {
  const sign = nano < 0n ? '-' : '';
  const abs = nano < 0n ? -nano : nano;
  const fraction = (abs % NANO).toString().padStart(9, '0');
  const whole = `${sign}${abs / NANO}`;
  if (style === 0) return `${whole}.${fraction}0`;
  if (style === 1) return `${whole}.${fraction}`;
  const trimmed = fraction.replace(/0+$/, '');
  return trimmed ? `${whole}.${trimmed}` : whole;
}

function decimalText(value: number, decimals: number): string {
  return value.toFixed(decimals).replace(/\.?0+$/, '') || '0';
}

/** A period: 'YYYY-MM' and its bounds in epoch ms (UTC; the end is the first instant of the next month). */
export interface PeriodBounds {
  period: string;
  start: number;
  end: number;
}

export function periodBounds(period: string): PeriodBounds {
  const [year, month] = period.split('-').map(Number);
  if (!year || !month) throw new Error(`bad period ${period}`);
  return { period, start: Date.UTC(year, month - 1, 1), end: Date.UTC(year, month, 1) };
}

/** Per account, its resources by product and region: fixed for the whole report, so months share resources. */
export type ResourcePool = Map<string, string[]>;

export function resourcePool(seed: string, accounts: readonly string[]): ResourcePool {
  const prng = new Prng(`${seed}|resources`);
  const pool: ResourcePool = new Map();
  for (const account of accounts)
    for (const product of PRODUCTS)
      for (const region of REGIONS)
        pool.set(`${account}|${product.code}|${region}`, product.resources(account, region, prng));
  return pool;
}

const TOTAL_WEIGHT = PRODUCTS.reduce((sum, p) => sum + p.weight, 0);

function pickProduct(prng: Prng): Product {
  let roll = prng.next() * TOTAL_WEIGHT;
  for (const product of PRODUCTS) {
    roll -= product.weight;
    if (roll < 0) return product;
  }
  return PRODUCTS[0] as Product;
}

/**
 * The lines of one delivery of a period, lazily (a 5-million-line month never sits in memory). A few whole-month
 * lines come first — a support Fee, an RIFee, Tax per account, a Credit and a Refund — then usage lines
 * (Usage, DiscountedUsage, SavingsPlanCoveredUsage with its SavingsPlanNegation), some on the period's first and
 * last hour, a share with a blank resource id.
 */
export function* periodLines(
  seed: string,
  bounds: PeriodBounds,
  count: number,
  accounts: readonly string[],
  pool: ResourcePool,
): Generator<GeneratedLine> {
  const prng = new Prng(seed);
  const hours = Math.round((bounds.end - bounds.start) / HOUR);
  let written = 0;
  const base = (account: string): Omit<GeneratedLine, 'lineItemType' | 'costText' | 'costNano'> => ({
    lineItemId: prng.hex(26),
    usageAccountId: account,
    start: bounds.start,
    end: bounds.end,
    productCode: '',
    productName: '',
    usageType: '',
    operation: '',
    availabilityZone: '',
    region: '',
    resourceId: '',
    usageAmount: '1',
    unblendedRate: '',
    description: '',
    pricingUnit: '',
    tagProject: '',
    tagTeam: '',
  });
  const money = (nano: bigint): Pick<GeneratedLine, 'costText' | 'costNano'> => ({
    costNano: nano,
    costText: costText(nano, prng.int(0, 2)),
  });
  const payer = accounts[0] ?? '';

  const monthly: GeneratedLine[] = [
    {
      ...base(payer),
      lineItemType: 'Fee',
      productCode: 'AWSSupportBusiness',
      productName: 'AWS Support (Business)',
      usageType: 'Dollar',
      description: 'AWS Support (Business)',
      ...money(BigInt(prng.int(100_00, 1_000_00)) * 10_000_000n),
    },
    {
      ...base(prng.pick(accounts)),
      lineItemType: 'RIFee',
      productCode: 'AmazonEC2',
      productName: 'Amazon Elastic Compute Cloud',
      usageType: 'HeavyUsage:m5.xlarge',
      operation: 'RunInstances',
      region: 'us-east-1',
      usageAmount: String(hours),
      description: 'USD 0.12 hourly fee per Linux/UNIX (Amazon VPC), m5.xlarge instance',
      ...money(120_000_000n * BigInt(hours)),
    },
    ...accounts.map((account) => ({
      ...base(account),
      lineItemType: 'Tax',
      productCode: 'AmazonEC2',
      productName: 'Amazon Elastic Compute Cloud',
      description: 'Tax for product code AmazonEC2',
      ...money(BigInt(prng.int(1, 50_000_000_000))),
    })),
    {
      ...base(prng.pick(accounts)),
      lineItemType: 'Credit',
      productCode: 'AmazonS3',
      productName: 'Amazon Simple Storage Service',
      description: 'AWS Credit, promotional',
      ...money(-BigInt(prng.int(1, 20_000_000_000))),
    },
    {
      ...base(prng.pick(accounts)),
      lineItemType: 'Refund',
      productCode: 'AmazonEC2',
      productName: 'Amazon Elastic Compute Cloud',
      description: 'Refund for "service disruption", us-east-1',
      ...money(-BigInt(prng.int(1, 5_000_000_000))),
    },
  ];
  for (const line of monthly) {
    if (written === count) return;
    written++;
    yield line;
  }

  while (written < count) {
    const account = prng.pick(accounts);
    const product = pickProduct(prng);
    const kind = prng.pick(product.kinds);
    const region = prng.pick(REGIONS);
    // Lines on the period's first and last hour: each belongs to its own period by its usage start.
    const edge = written % 40;
    const hour = edge === 0 ? 0 : edge === 1 ? hours - 1 : prng.int(0, hours - 1);
    const start = bounds.start + hour * HOUR;
    const resources = pool.get(`${account}|${product.code}|${region}`) ?? [];
    const blank = prng.next() < 0.15 || (product.code === 'AWSDataTransfer' && prng.next() < 0.5);
    const costNano = BigInt(prng.int(kind.cost[0], kind.cost[1]));
    const roll = prng.next();
    const type = roll < 0.8 ? 'Usage' : roll < 0.9 ? 'DiscountedUsage' : 'SavingsPlanCoveredUsage';
    const prefix = region === 'us-east-1' ? '' : `${REGION_PREFIX[region] ?? ''}-`;
    const usage: GeneratedLine = {
      ...base(account),
      lineItemType: type,
      start,
      end: start + HOUR,
      productCode: product.code,
      productName: product.name,
      usageType: `${prefix}${kind.usageType}`,
      operation: kind.operation,
      availabilityZone: product.zonal ? `${region}${prng.pick(['a', 'b', 'c'])}` : '',
      region,
      resourceId: blank ? '' : prng.pick(resources),
      usageAmount: decimalText(prng.next() * 1000, 8),
      unblendedRate: decimalText(prng.next(), 10),
      description: kind.description,
      pricingUnit: kind.unit,
      tagProject: prng.pick(PROJECTS),
      tagTeam: prng.pick(TEAMS),
      ...money(type === 'DiscountedUsage' ? 0n : costNano),
    };
    written++;
    yield usage;
    if (type === 'SavingsPlanCoveredUsage' && written < count) {
      written++;
      yield {
        ...usage,
        lineItemId: prng.hex(26),
        lineItemType: 'SavingsPlanNegation',
        description: `SavingsPlanNegation used by AccountId : ${account} and UsageSku : ${prng.hex(16).toUpperCase()}`,
        ...money(-costNano),
      };
    }
  }
}
