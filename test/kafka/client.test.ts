// The Kafka suites that take seconds on the one broker `npm run test:kafka:client` starts: the connector in process,
// on worker threads and under SIGKILL, the cluster tasks' Kafka parts and the examples. CI runs them on every Node
// line the client is built for; all.test.ts adds the broker restart and the multi-process cluster runs (minutes).
import './kafka-source.test.ts';
import './kafka-sink.test.ts';
import './kafka-tls.test.ts';
import './kafka-crash.test.ts';
import './repartition-exchange.test.ts';
import './repartition-edge.test.ts';
import './task-membership.test.ts';
import './task-transaction.test.ts';
import './task-lost-stop.test.ts';
import './source-watermark-move.test.ts';
import './kafka-example.test.ts';
import './cluster-example.test.ts';
