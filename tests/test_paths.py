"""Pytree paths read as tokens (model/paths.py): what names a module's call by the parameters it reads."""
from jaxprlens.model.paths import module_prefix, path_tokens, tokens_text


def test_paths_read_as_tokens():
    assert path_tokens("state[0]['blocks'][1]['attn']['key']['kernel'].value") == (
        "state", 0, "blocks", 1, "attn", "key", "kernel", "value")
    assert path_tokens('params.layers[0].weight') == ("params", "layers", 0, "weight")
    assert path_tokens('m["w"][-1]') == ("m", "w", -1)
    assert path_tokens("") == ()


def test_a_modules_path_is_its_parameters_common_prefix():
    k = path_tokens("s['blocks'][0]['attn']['wq'].value")
    b = path_tokens("s['blocks'][0]['attn']['wk'].value")
    assert module_prefix([k, b]) == ("s", "blocks", 0, "attn")          # a module: the parameters' common path
    assert module_prefix([k]) == ("s", "blocks", 0, "attn")             # one parameter alone: its module
    assert module_prefix([]) == ()


def test_tokens_written_back_as_a_path():
    assert tokens_text(("blocks", 0, "attn", "query")) == "blocks[0].attn.query"
    assert tokens_text(()) == ""
