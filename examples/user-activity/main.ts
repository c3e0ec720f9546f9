// Runs the user-activity job on generated activity: early and final per-minute summaries, and late events.
import { StreamExecutionEnvironment } from '../../src/index.ts';
import { activityWatermarks, generateActivity } from './generate-activity.ts';
import { userActivity } from './user-activity.ts';

const env = StreamExecutionEnvironment.create();
const activity = env.fromElements(...generateActivity()).assignTimestampsAndWatermarks(activityWatermarks());
const { summaries, late } = userActivity(activity);
summaries.print('summary');
late.print('late');
await env.execute('user activity');
