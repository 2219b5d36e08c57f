import type { Node } from 'web-tree-sitter'
import { languageOfPath } from './languages.js'
import { loadLanguage, parserFor } from './loader.js'

/** The 1-based lines where a file's imports and its definitions start. */
export interface SyntaxOutline {
  imports: number[]
  definitions: number[]
}

const IMPORT =
  /^(?:import_statement|import_from_statement|import_declaration|preproc_include|using_directive|use_declaration|namespace_use_declaration|package_declaration|package_clause)$/
const DEFINITION =
  /^(?:(?:function|generator_function|class|abstract_class|interface|type_alias|enum|method|constructor|struct|record|trait|module|namespace)_(?:declaration|definition)|(?:function|struct|enum|trait|impl|mod|type|const|static|macro)_item|method|singleton_method|class|module|type_declaration|function_signature|method_signature|abstract_method_signature|template_declaration)$/
// Nodes whose children hold further definitions (a class's methods, an export's declaration);
// a function's body is not one of them.
const CONTAINER =
  /^(?:program|module|source_file|translation_unit|export_statement|decorated_definition|class_declaration|abstract_class_declaration|class_definition|class_body|class|interface_body|impl_item|trait_item|declaration_list|namespace_declaration|namespace_definition|internal_module|field_declaration_list|enum_body|body_statement|compilation_unit|template_declaration|lexical_declaration|variable_declarator)$/
const MAX_DEPTH = 6

/**
 * The outline of a file by tree-sitter: the imports, and the definitions at the top level and
 * inside classes, impls and namespaces (not inside function bodies). Null when the path's
 * language is unknown or its grammar will not load: the caller falls back to line patterns.
 */
export async function syntaxOutline(path: string, content: string): Promise<SyntaxOutline | null> {
  const language = languageOfPath(path)
  if (language === null) return null
  const grammar = await loadLanguage(language)
  if (grammar === null) return null
  const parser = await parserFor(grammar)
  const tree = parser.parse(content)
  if (tree === null) return null
  try {
    const outline: SyntaxOutline = { imports: [], definitions: [] }
    visit(tree.rootNode, 0, outline)
    return outline
  } finally {
    tree.delete()
  }
}

function visit(node: Node, depth: number, outline: SyntaxOutline): void {
  for (const child of node.namedChildren) {
    if (child === null) continue
    const line = child.startPosition.row + 1
    if (IMPORT.test(child.type)) outline.imports.push(line)
    else if (DEFINITION.test(child.type) || isArrowConst(child)) outline.definitions.push(line)
    if (
      depth < MAX_DEPTH &&
      (CONTAINER.test(child.type) || (child.type === 'block' && node.type === 'class_definition'))
    )
      visit(child, depth + 1, outline)
  }
}

/** `const name = (…) => …` or `= function …`: a definition written as a declaration. */
function isArrowConst(node: Node): boolean {
  if (node.type !== 'variable_declarator') return false
  const value = node.childForFieldName('value')?.type
  return value === 'arrow_function' || value === 'function_expression' || value === 'function'
}
