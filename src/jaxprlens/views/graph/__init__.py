"""The program as a graph: DOT of one program, its calls folded, repeated blocks folded, drawn as SVG."""
