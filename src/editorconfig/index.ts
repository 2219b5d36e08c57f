export { EditorconfigRules, type EditorRules } from './rules.js'
export { restyleAdded } from './restyle.js'
