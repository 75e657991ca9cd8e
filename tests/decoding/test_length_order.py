from keras_nmt.decoding import length_order, restore_order


def test_length_order_is_a_stable_sort_by_length_and_restore_order_undoes_it():
    texts = ["a b c", "a", "bb", "c", ""]
    order = length_order(texts)
    assert order == [4, 1, 3, 2, 0]
    assert restore_order([texts[i].upper() for i in order], order) == [t.upper() for t in texts]
    assert length_order([]) == [] and restore_order([], []) == []
