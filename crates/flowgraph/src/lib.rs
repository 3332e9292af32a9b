//! flowgraph: dominators, post-dominators with a virtual exit, and loop nesting on plain index graphs.
