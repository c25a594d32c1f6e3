export type { DecisionLogLine, DecisionLogOptions } from './decision-log-plugin';
export {
  decisionLine,
  decisionLogPlugin,
  decisionLogPlugin as default,
} from './decision-log-plugin';
