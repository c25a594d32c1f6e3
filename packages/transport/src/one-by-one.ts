/** Items already at hand as an async iterable, for a decoder that reads a stream. */
export async function* oneByOne<Item>(items: readonly Item[]): AsyncGenerator<Item> {
  yield* items;
}
