// Run by ../node-redis.sh: every reply node-redis decodes is asserted (node:assert); exits non-zero on the first wrong one.
import { createClient, RESP_TYPES } from 'redis';
import assert from 'node:assert/strict';
const port = Number(process.argv[2]);
for (const RESP of [2, 3]) {
  const client = createClient({ socket: { host: '127.0.0.1', port }, RESP });
  client.on('error', e => { console.error('client error', e); process.exit(2); });
  await client.connect();
  const f = `node-bf-${RESP}`;
  assert.equal(await client.bf.reserve(f, 0.01, 1000, { NONSCALING: true }), 'OK');
  assert.equal(await client.bf.add(f, 'one'), true);
  assert.equal(await client.bf.add(f, 'one'), false);
  assert.deepEqual(await client.bf.mAdd(f, ['two', 'three', 'two']), [true, true, false]);
  assert.equal(await client.bf.exists(f, 'two'), true);
  assert.equal(await client.bf.exists(f, 'nine'), false);
  assert.deepEqual(await client.bf.mExists(f, ['one', 'nine', 'three']), [true, false, true]);
  assert.equal(await client.bf.card(f), 3);
  const info = await client.bf.info(f);
  console.log(`RESP${RESP} BF.INFO`, JSON.stringify(info));
  assert.deepEqual(await client.bf.insert(`${f}-ins`, ['x', 'y', 'x'], { CAPACITY: 500, ERROR: 0.001 }), [true, true, false]);
  await assert.rejects(client.bf.insert(`${f}-none`, ['x'], { NOCREATE: true }), /not found/);
  await assert.rejects(client.bf.reserve(f, 0.01, 1000), /item exists/);
  // dump and load
  const keys = Array.from({ length: 300 }, (_, i) => `key-${i}`);
  await client.bf.mAdd(`${f}-src`, keys);
  let iterator = 0;
  const binary = client.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer }); // dump chunks are binary
  for (;;) {
    const chunk = await binary.bf.scanDump(`${f}-src`, iterator);
    iterator = chunk.iterator;
    if (iterator === 0) break;
    assert.equal(await client.bf.loadChunk(`${f}-copy`, iterator, chunk.chunk), 'OK');
  }
  assert.ok((await client.bf.mExists(`${f}-copy`, keys)).every(Boolean));
  // the dedup idiom
  assert.equal(await client.set(`msg-${RESP}`, 'worker-3', { NX: true, EX: 3600 }), 'OK');
  assert.equal(await client.set(`msg-${RESP}`, 'worker-5', { NX: true, EX: 3600 }), null);
  assert.equal(await client.get(`msg-${RESP}`), 'worker-3');
  // deja's own commands
  assert.equal(await client.sendCommand(['DJ.CREATE', `orders-${RESP}`, 'recent', 'keys', '10000']), 'OK');
  assert.equal(await client.sendCommand(['DJ.CHECKTHENADD', `orders-${RESP}`, 'order-17', '4711']), 'NEW');
  assert.equal(await client.sendCommand(['DJ.CHECKTHENADD', `orders-${RESP}`, 'order-17', '4711']), 'RETRY');
  // pipelining
  const replies = await Promise.all(Array.from({ length: 500 }, (_, i) => client.bf.add(`${f}-pipe`, `k-${i % 250}`)));
  replies.forEach((r, i) => assert.equal(r, i < 250, `reply ${i}`));
  await client.quit();
  console.log(`RESP${RESP}: all checks passed`);
}
