export { EditorconfigRules } from './rules.js'
export { restyleAdded } from './restyle.js'
