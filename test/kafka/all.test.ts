// The Kafka integration suite's entry: every test here runs against the real broker `npm run test:kafka` starts
// (the cluster failure test starts a three-broker cluster of its own, scripts/kafka/cluster.sh).
import './client.test.ts';
import './kafka-broker-restart.test.ts';
import './cluster-mode.test.ts';
import './cluster-chaos.test.ts';
