// The enrichment app: orders get their customer (a global table) and their product (a foreign-key
// join), and each order gets one status, paid or unpaid, from a stream-stream left join with the
// payments within 10 minutes.
import { JoinWindows, type Serde, SerdeError, Serdes, StreamsBuilder, type Topology } from '@kstreams/core';

export const MINUTE_MS = 60_000;
/** A payment joins its order when their timestamps are at most this far apart. */
export const PAYMENT_WINDOW_MS = 10 * MINUTE_MS;
/** How long after the window a late record still counts; then an unpaid order is reported. */
export const PAYMENT_GRACE_MS = MINUTE_MS;

/**
 * How long a task waits for a caught-up partition that has no data before it processes the others
 * (Kafka Streams' max.task.idle.ms; data known to be on the broker, such as the payments' backlog
 * of a task that has just moved, is waited for however long). The default, 0, would let an order
 * read a moment before its payment, written at the same time but not yet on the broker, close
 * windows early and report a paid order unpaid. The cost: a quiet topic delays the other by up
 * to this long.
 */
export const MAX_TASK_IDLE_MS = 5_000;

/** Global store of the customers, queryable on every instance. */
export const CUSTOMERS_STORE = 'customers';
/** The products table's store (partitioned like the products topic). */
export const PRODUCTS_STORE = 'products';
/** The orders with their customer, keyed by order id: the left side of the foreign-key join. */
export const ORDERS_STORE = 'orders-with-customer';
/** The enriched orders, keyed by order id. */
export const ENRICHED_STORE = 'enriched-orders';
/** The stream-stream join's name: its stores and nodes are named after it. */
export const PAYMENTS_JOIN = 'orders-payments';

export interface Customer {
  name: string;
  city: string;
}

export interface Product {
  name: string;
  category: string;
}

/** Keyed by order id. */
export interface Order {
  customerId: string;
  productId: string;
  amount: number;
}

/** Keyed by the id of the order it pays. */
export interface Payment {
  amount: number;
}

export interface OrderWithCustomer extends Order {
  /** null: a guest order, its customer id is not in the customers table. */
  customer: Customer | null;
}

export interface EnrichedOrder extends OrderWithCustomer {
  product: Product;
}

export type OrderStatus =
  | { status: 'paid'; customerId: string; amount: number; paid: number }
  | { status: 'unpaid'; customerId: string; amount: number };

/** The topics, named from the app's --input and --output prefixes. */
export interface EnrichmentTopics {
  orders: string;
  payments: string;
  customers: string;
  products: string;
  enriched: string;
  status: string;
}

export function enrichmentTopics(input: string, output: string): EnrichmentTopics {
  return {
    orders: `${input}-orders`,
    payments: `${input}-payments`,
    customers: `${input}-customers`,
    products: `${input}-products`,
    enriched: `${output}-enriched-orders`,
    status: `${output}-order-status`,
  };
}

/** JSON values that must have the fields the app reads: a bad record fails with what it lacks. */
function jsonOf<T>(what: string, example: string, fields: Record<string, 'string' | 'number'>): Serde<T> {
  const json = Serdes.Json<T>();
  return Serdes.from(
    (value: T) => json.serialize(value),
    (bytes: Buffer) => {
      const value = json.deserialize(bytes) as Record<string, unknown>;
      for (const [field, type] of Object.entries(fields)) {
        if (typeof value?.[field] !== type)
          throw new SerdeError(
            `${what} needs a ${type} "${field}" field, e.g. ${example}: ${bytes.toString('utf8').slice(0, 80)}`,
          );
      }
      return value as T;
    },
  );
}

export const serdes = {
  customer: jsonOf<Customer>('a customer', '{"name":"Ada Byrne","city":"Cork"}', {
    name: 'string',
    city: 'string',
  }),
  product: jsonOf<Product>('a product', '{"name":"kettle","category":"kitchen"}', {
    name: 'string',
    category: 'string',
  }),
  order: jsonOf<Order>('an order', '{"customerId":"c-0001","productId":"p-01","amount":12.5}', {
    customerId: 'string',
    productId: 'string',
    amount: 'number',
  }),
  payment: jsonOf<Payment>('a payment', '{"amount":12.5}', { amount: 'number' }),
  orderWithCustomer: Serdes.Json<OrderWithCustomer>(),
  enriched: Serdes.Json<EnrichedOrder>(),
  status: Serdes.Json<OrderStatus>(),
};

/** What the status join gives for an order and its payment (null: none within the window). */
export function orderStatus(order: Order, payment: Payment | null): OrderStatus {
  const { customerId, amount } = order;
  return payment === null
    ? { status: 'unpaid', customerId, amount }
    : { status: 'paid', customerId, amount, paid: payment.amount };
}

export function enrichmentTopology(topics: EnrichmentTopics): Topology {
  const builder = new StreamsBuilder();
  const str = Serdes.String();
  // Customers are few and every order needs one: a global table on each instance, so the orders
  // stay keyed by order id (a KTable would need them re-keyed by customer and back).
  const customers = builder.globalTable(
    topics.customers,
    { keySerde: str, valueSerde: serdes.customer },
    { storeName: CUSTOMERS_STORE },
  );
  // Products are partitioned like any table; an order reaches its product by foreign key.
  const products = builder.table(
    topics.products,
    { keySerde: str, valueSerde: serdes.product },
    { storeName: PRODUCTS_STORE },
  );
  const orders = builder.stream(topics.orders, { keySerde: str, valueSerde: serdes.order });
  const payments = builder.stream(topics.payments, { keySerde: str, valueSerde: serdes.payment });

  orders
    .leftJoin(
      customers,
      (_orderId, order) => order.customerId,
      (order, customer): OrderWithCustomer => ({ ...order, customer }),
    )
    .toTable({ storeName: ORDERS_STORE, keySerde: str, valueSerde: serdes.orderWithCustomer })
    .join(
      products,
      (order) => order.productId,
      (order, product): EnrichedOrder => ({ ...order, product }),
      { storeName: ENRICHED_STORE, keySerde: str, valueSerde: serdes.enriched },
    )
    .toStream()
    .to(topics.enriched, { keySerde: str, valueSerde: serdes.enriched });

  orders
    .leftJoin(
      payments,
      orderStatus,
      JoinWindows.ofTimeDifferenceAndGrace(PAYMENT_WINDOW_MS, PAYMENT_GRACE_MS),
      { name: PAYMENTS_JOIN, keySerde: str, valueSerde: serdes.order, otherValueSerde: serdes.payment },
    )
    .to(topics.status, { keySerde: str, valueSerde: serdes.status });
  return builder.build();
}
