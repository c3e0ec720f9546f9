// The page-views job file for `weir run --cluster <bootstrap> --job-id <id>`: start it on 2 or 3 processes, they share its 8 tasks.
//
//   UV_THREADPOOL_SIZE=20 node --import tsx src/cli/weir-cli.ts run --cluster "$WEIR_KAFKA_BOOTSTRAP" \
//     --job-id page-views examples/cluster-page-views/job.ts [input topic] [output topic]
//
// The file sets no cluster option: the command line gives it. It reads the brokers from $WEIR_KAFKA_BOOTSTRAP
// for its source and sink (the address given to --cluster) and the topics from its arguments (default
// page-views and page-view-counts, as write-input.ts creates them). README.md, "Cluster mode", says the steps.
import { StreamExecutionEnvironment } from '../../src/index.ts';
import { buildPageViewCounts } from './page-views.ts';

const bootstrapServers = process.env.WEIR_KAFKA_BOOTSTRAP;
if (bootstrapServers === undefined || bootstrapServers === '')
  throw new Error('Set WEIR_KAFKA_BOOTSTRAP to the brokers given to --cluster');
const [input = 'page-views', output = 'page-view-counts'] = process.argv.slice(2);

// Parallelism 4: the keyed part (window counts) is 4 tasks; reading the 4-partition input is 4 more.
const env = StreamExecutionEnvironment.create({ parallelism: 4 });
buildPageViewCounts(env, { bootstrapServers, input, output });
await env.execute('page-views'); // in cluster mode: runs until SIGTERM or SIGINT, then hands its tasks over
