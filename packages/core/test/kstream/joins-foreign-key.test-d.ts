// The foreign-key join's types: the value form infers its parameter; a (key, value) extractor needs
// its parameters annotated (TypeScript cannot tell the two overloads apart for an unannotated
// two-parameter arrow); a left join's right value may be null, an inner join's may not.
import { describe, expectTypeOf, it } from 'vitest';
import { type KTable, StreamsBuilder } from '../../src/kstream/index.ts';

interface Order {
  productId: string;
  qty: number;
}
interface Product {
  name: string;
}

describe('KTable foreign-key join types', () => {
  const b = new StreamsBuilder();
  const orders = b.table<string, Order>('orders');
  const products = b.table<string, Product>('products');

  it('keeps the left key and takes the joiner result as value', () => {
    const joined = orders.join(
      products,
      (order) => order.productId,
      (order, product) => `${order.qty} ${product.name}`,
    );
    expectTypeOf(joined).toEqualTypeOf<KTable<string, string>>();
  });

  it('types a left join right value as nullable, and takes an annotated (key, value) extractor', () => {
    const joined = orders.leftJoin(
      products,
      (orderId: string, order: Order) => (orderId === '' ? null : order.productId),
      (order, product) => {
        expectTypeOf(product).toEqualTypeOf<Product | null>();
        return order.qty;
      },
    );
    expectTypeOf(joined).toEqualTypeOf<KTable<string, number>>();
  });

  it('still types the table-table join', () => {
    const other = b.table<string, number>('other');
    expectTypeOf(orders.join(other, (order, n) => order.qty + n)).toEqualTypeOf<KTable<string, number>>();
  });
});
