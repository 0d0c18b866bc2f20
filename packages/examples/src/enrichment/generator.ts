// A shop over simulated time, the same for the same seed, and the output the enrichment app must
// give for it. Customers and products come first (older than every order); orders about a second
// apart, most paid within the payment window, some paid too late, some never; orders and payments
// in time order, so that each topic's partitions are in time order. One payment per partition at
// the end, for no order, moves every task's stream time past the last payment windows so that
// they close and the last unpaid orders are reported.
import { keysForPartitions } from '../common/partitions.ts';
import { random } from '../common/simulation.ts';
import {
  type Customer,
  type EnrichedOrder,
  MINUTE_MS,
  type Order,
  type OrderStatus,
  PAYMENT_GRACE_MS,
  PAYMENT_WINDOW_MS,
  type Payment,
  type Product,
} from './topology.ts';

export interface Keyed<V> {
  key: string;
  value: V;
  /** Event time, ms since the epoch (the record's timestamp). */
  timestamp: number;
}

export interface ShopOptions {
  seed: number;
  orders: number;
  customers: number;
  /** The first order's time (ms); the reference data is an hour older. */
  startMs: number;
  /** Partitions of the payments topic: one end-of-data payment goes to each. */
  partitions: number;
}

export type ShopEvent = ({ topic: 'orders' } & Keyed<Order>) | ({ topic: 'payments' } & Keyed<Payment>);

export interface Shop {
  customers: Keyed<Customer>[];
  products: Keyed<Product>[];
  /** Orders and payments in time order: the order to send them in. */
  events: ShopEvent[];
  /** One payment per partition after everything, for no order. */
  endOfData: ShopEvent[];
  expected: { enriched: Keyed<EnrichedOrder>[]; status: Keyed<OrderStatus>[] };
  counts: { guests: number; paid: number; paidLate: number; neverPaid: number };
}

/** Mean time between two orders. */
export const ORDER_SPACING_MS = 1_000;
/** Payments that count come at most this long after their order: minutes inside the window. */
const PAID_WITHIN_MS = 8 * MINUTE_MS;
/** Late payments come at least this long after their order: minutes outside window and grace. */
const LATE_AFTER_MS = PAYMENT_WINDOW_MS + PAYMENT_GRACE_MS + MINUTE_MS;
const LATE_PAYMENTS = 0.05;
const MISSING_PAYMENTS = 0.1;
const GUEST_ORDERS = 0.03;
/** The key of the end-of-data payments: `~end-of-data-N`, not an order id. */
export const END_OF_DATA_PREFIX = '~end-of-data-';

const FIRST = ['Ada', 'Bruno', 'Chiara', 'Dmitri', 'Elif', 'Farah', 'Goran', 'Hana', 'Iker', 'Jonas'];
const LAST = ['Byrne', 'Costa', 'Dubois', 'Eriksen', 'Fischer', 'Garcia', 'Horvat', 'Ito', 'Jansen'];
const CITIES = ['Cork', 'Porto', 'Lyon', 'Bergen', 'Graz', 'Split', 'Turku', 'Ghent'];
const PRODUCTS: Product[] = [
  { name: 'kettle', category: 'kitchen' },
  { name: 'teapot', category: 'kitchen' },
  { name: 'mug', category: 'kitchen' },
  { name: 'sencha 100 g', category: 'tea' },
  { name: 'assam 250 g', category: 'tea' },
  { name: 'rooibos 100 g', category: 'tea' },
  { name: 'oolong 50 g', category: 'tea' },
  { name: 'strainer', category: 'accessories' },
  { name: 'tea towel', category: 'accessories' },
  { name: 'gift box', category: 'gifts' },
];

const id = (prefix: string, n: number, width: number) => `${prefix}${String(n).padStart(width, '0')}`;

export function generateShop(options: ShopOptions): Shop {
  const { seed, startMs, partitions } = options;
  const rand = random(seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)]!;
  const reference = startMs - 60 * MINUTE_MS;
  const customers = Array.from({ length: options.customers }, (_, i) => ({
    key: id('c-', i + 1, 4),
    value: { name: `${pick(FIRST)} ${pick(LAST)}`, city: pick(CITIES) },
    timestamp: reference,
  }));
  const products = PRODUCTS.map((value, i) => ({ key: id('p-', i + 1, 2), value, timestamp: reference }));
  const customerById = new Map(customers.map((c) => [c.key, c.value]));
  const productById = new Map(products.map((p) => [p.key, p.value]));

  const events: ShopEvent[] = [];
  const expected: Shop['expected'] = { enriched: [], status: [] };
  const counts = { guests: 0, paid: 0, paidLate: 0, neverPaid: 0 };
  let t = startMs;
  for (let i = 1; i <= options.orders; i++) {
    const key = id('o-', i, 6);
    const guest = rand() < GUEST_ORDERS;
    if (guest) counts.guests++;
    const customerId = guest ? id('g-', i, 6) : pick(customers).key;
    const order: Order = {
      customerId,
      productId: pick(products).key,
      amount: Math.round((5 + rand() * 195) * 100) / 100,
    };
    events.push({ topic: 'orders', key, value: order, timestamp: t });
    const customer = customerById.get(customerId) ?? null;
    expected.enriched.push({
      key,
      value: { ...order, customer, product: productById.get(order.productId)! },
      timestamp: t,
    });
    const fate = rand();
    const unpaid = {
      key,
      value: { status: 'unpaid', customerId, amount: order.amount } as const,
      timestamp: t,
    };
    if (fate < MISSING_PAYMENTS) {
      counts.neverPaid++;
      expected.status.push(unpaid);
    } else if (fate < MISSING_PAYMENTS + LATE_PAYMENTS) {
      counts.paidLate++;
      const paidAt = t + LATE_AFTER_MS + Math.floor(rand() * 30 * MINUTE_MS);
      events.push({ topic: 'payments', key, value: { amount: order.amount }, timestamp: paidAt });
      expected.status.push(unpaid);
    } else {
      counts.paid++;
      const paidAt = t + 10_000 + Math.floor(rand() * (PAID_WITHIN_MS - 10_000));
      events.push({ topic: 'payments', key, value: { amount: order.amount }, timestamp: paidAt });
      const status = { status: 'paid', customerId, amount: order.amount, paid: order.amount } as const;
      expected.status.push({ key, value: status, timestamp: paidAt });
    }
    t += 1 + Math.floor(-Math.log(1 - rand()) * ORDER_SPACING_MS);
  }
  // Stable: an order and its payment are never at the same time, other ties keep their order.
  events.sort((a, b) => a.timestamp - b.timestamp);
  const last = events.at(-1)?.timestamp ?? startMs;
  const endOfData = keysForPartitions(partitions, END_OF_DATA_PREFIX).map((key) => ({
    topic: 'payments' as const,
    key,
    value: { amount: 0 },
    timestamp: last + PAYMENT_WINDOW_MS + PAYMENT_GRACE_MS + 5 * MINUTE_MS,
  }));
  return { customers, products, events, endOfData, expected, counts };
}

/** How many hours of simulated time `orders` orders take (their payments included). */
export function shopHours(orders: number): number {
  return Math.ceil((orders * ORDER_SPACING_MS + PAYMENT_WINDOW_MS + 45 * MINUTE_MS) / (60 * MINUTE_MS));
}
