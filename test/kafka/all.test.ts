// The Kafka integration suite's entry: every test here runs against the real broker `npm run test:kafka` starts
// (the cluster failure test starts a three-broker cluster of its own, scripts/kafka/cluster.sh).
import './kafka-source.test.ts';
import './kafka-sink.test.ts';
import './kafka-tls.test.ts';
import './kafka-broker-restart.test.ts';
import './kafka-crash.test.ts';
import './repartition-exchange.test.ts';
import './repartition-edge.test.ts';
import './task-membership.test.ts';
import './task-transaction.test.ts';
import './task-lost-stop.test.ts';
import './source-watermark-move.test.ts';
import './cluster-mode.test.ts';
import './cluster-chaos.test.ts';
import './kafka-example.test.ts';
import './cluster-example.test.ts';
